// summary.txt: the facts of the seed's GgufInfo (Example 17) in its wording and number formats,
// then our additions (each quant's share of the bytes, the derived figures of Example 10, the
// byte order, a partial file's missing bytes and the warnings).
#include <fmt/format.h>

#include <array>
#include <iterator>
#include <map>
#include <optional>

#include "gguf/render/render.hpp"
#include "gguf/render/render_text.hpp"

namespace gguf {

namespace {

using render_detail::append_each_line;
using render_detail::append_one_line;
using render_detail::append_scalar;
using render_detail::group_digits;

// The hyperparameters GgufInfo prints, in its order, as suffixes of "{arch}.".
constexpr std::array<std::string_view, 7> kMainKeys = {
    "context_length",       "embedding_length",        "block_count",   "feed_forward_length",
    "attention.head_count", "attention.head_count_kv", "rope.freq_base"};

struct MixRow {
  uint64_t tensors = 0, params = 0, bytes = 0;
};

// A metadata value as a non-negative integer, when the key exists and holds one.
std::optional<uint64_t> unsigned_key(const Model& model, const std::string& key) {
  const MetadataEntry* e = model.find(key);
  return e ? e->value.as_unsigned() : std::nullopt;
}

void append_identity(std::string& out, const Model& model) {
  fmt::format_to(std::back_inserter(out),
                 "GGUF v{}, {} KV pairs, {} tensors, alignment {}, data at byte {}\n",
                 model.version, model.n_kv, model.n_tensors, model.alignment, model.data_offset);

  auto value_or_none = [&](std::string_view key) {
    std::string text;
    const MetadataEntry* e = model.find(key);
    if (!e) return std::string("(none)");
    std::string raw;
    append_scalar(raw, e->value);
    append_one_line(text, raw);
    return text;
  };
  std::string file_type = "(none)";
  if (const MetadataEntry* e = model.find("general.file_type")) {
    const auto id = e->value.as_unsigned();
    const auto name = id ? file_type_name(*id) : std::nullopt;
    file_type = name && !name->empty() ? std::string(*name) : value_or_none("general.file_type");
  }
  fmt::format_to(std::back_inserter(out), "architecture {}, name {}, file type {}\n",
                 value_or_none("general.architecture"), value_or_none("general.name"), file_type);
}

// GgufInfo prints " " + k + " = " + v with Java's toString, so a FLOAT32 500000 came out as
// "500000.0"; we print every value with render_scalar (the metadata/ file's form): "500000".
void append_hyperparameter(std::string& out, std::string_view suffix, const Value& v) {
  out.push_back(' ');
  append_one_line(out, suffix);
  out.append(" = ");
  std::string raw;
  append_scalar(raw, v);  // an array prints as "[N x TYPE]"
  append_one_line(out, raw);
  out.push_back('\n');
}

void append_hyperparameters(std::string& out, const Model& model, const std::string& arch) {
  const std::string prefix = arch + ".";
  for (std::string_view suffix : kMainKeys) {
    if (const MetadataEntry* e = model.find(prefix + std::string(suffix))) {
      append_hyperparameter(out, suffix, e->value);
    }
  }
  for (const MetadataEntry& e : model.metadata) {
    if (e.key.size() <= prefix.size() || e.key.substr(0, prefix.size()) != prefix) continue;
    const std::string_view suffix = e.key.substr(prefix.size());
    bool main_key = false;
    for (std::string_view k : kMainKeys) main_key = main_key || k == suffix;
    if (!main_key) append_hyperparameter(out, suffix, e.value);
  }
}

void append_quant_mix(std::string& out, const Model& model) {
  // Sorted by type name, as GgufInfo's TreeMap does (byte order, same as Java's for ASCII).
  std::map<std::string, MixRow> mix;
  uint64_t params = 0, bytes = 0;
  for (const TensorInfo& t : model.tensors) {
    const auto type = tensor_type(t.type_id);
    MixRow& row = mix[type ? std::string(type->name) : std::string("unknown")];
    ++row.tensors;
    row.params += t.elements;
    row.bytes += t.bytes;
    params += t.elements;
    bytes += t.bytes;
  }
  for (const auto& [name, row] : mix) {
    // Our addition to GgufInfo's line: the type's share of the tensor bytes.
    const double share = bytes == 0 ? 0.0 : static_cast<double>(row.bytes) * 100.0 / bytes;
    fmt::format_to(std::back_inserter(out),
                   " {:<6} {:>3} tensors {:>14} params {:>14} bytes {:>5.1f}%\n", name, row.tensors,
                   group_digits(row.params), group_digits(row.bytes), share);
  }
  // GgufInfo divides by zero here for a file without tensors; we print 0.00.
  const double bpw =
      params == 0 ? 0.0 : static_cast<double>(bytes) * 8.0 / static_cast<double>(params);
  fmt::format_to(std::back_inserter(out),
                 "parameters {}, tensor data {} bytes, {:.2f} bpw, file {} bytes\n",
                 group_digits(params), group_digits(bytes), bpw, group_digits(model.file_size));
}

// Example 10's figures, each printed only when the keys it needs hold integers.
void append_derived(std::string& out, const Model& model, const std::string& arch) {
  const std::string p = arch + ".";
  const auto embedding = unsigned_key(model, p + "embedding_length");
  const auto layers = unsigned_key(model, p + "block_count");
  const auto heads = unsigned_key(model, p + "attention.head_count");
  auto kv_heads = unsigned_key(model, p + "attention.head_count_kv");
  if (!kv_heads) kv_heads = heads;  // no separate KV heads: plain multi-head attention

  auto head_dim = unsigned_key(model, p + "attention.key_length");
  if (!head_dim && embedding && heads && *heads != 0) head_dim = *embedding / *heads;

  auto line = std::back_inserter(out);
  if (head_dim) fmt::format_to(line, "head dimension {}\n", *head_dim);
  if (heads && kv_heads && *kv_heads != 0) {
    if (*heads % *kv_heads == 0) {
      fmt::format_to(line, "query heads per KV head {}\n", *heads / *kv_heads);
    } else {
      fmt::format_to(line, "query heads per KV head {}\n",
                     format_double(static_cast<double>(*heads) / static_cast<double>(*kv_heads)));
    }
  }
  if (layers && kv_heads && head_dim) {
    // 2 (keys and values) x layers x KV heads x head dimension x 2 bytes (F16).
    uint64_t per_token = 4;
    if (!__builtin_mul_overflow(per_token, *layers, &per_token) &&
        !__builtin_mul_overflow(per_token, *kv_heads, &per_token) &&
        !__builtin_mul_overflow(per_token, *head_dim, &per_token)) {
      fmt::format_to(line, "KV cache {} bytes per token at F16\n", group_digits(per_token));
    }
  }
}

}  // namespace

std::string render_summary(const Model& model) {
  std::string out;
  append_identity(out, model);

  std::optional<std::string> arch;
  if (const MetadataEntry* e = model.find("general.architecture");
      e && e->value.type == ValueType::STRING) {
    arch = std::string(e->value.str);
  }
  if (arch) append_hyperparameters(out, model, *arch);

  if (const MetadataEntry* e = model.find("tokenizer.ggml.tokens");
      e && e->value.type == ValueType::ARRAY) {
    fmt::format_to(std::back_inserter(out), " vocabulary {} tokens, chat template {}\n",
                   e->value.array.count, model.find("tokenizer.chat_template") != nullptr);
  }

  append_quant_mix(out, model);
  if (arch) append_derived(out, model, *arch);
  out.append(model.big_endian ? "byte order big-endian\n" : "byte order little-endian\n");
  if (const uint64_t missing = model.missing_bytes(); missing != 0) {
    fmt::format_to(std::back_inserter(out), "missing {} bytes of tensor data (partial file)\n",
                   group_digits(missing));
  }
  if (model.warnings.empty()) {
    out.append("warnings: none\n");
  } else {
    fmt::format_to(std::back_inserter(out), "warnings: {}\n", model.warnings.size());
    append_each_line(out, " - ", model.warnings);
  }
  return out;
}

std::string render_warnings(const Model& model) {
  std::string out;
  append_each_line(out, "", model.warnings);
  return out;
}

}  // namespace gguf
