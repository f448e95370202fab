#include "gguf/hf/hf_view.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <unordered_set>

#include "gguf/decoded_view.hpp"
#include "gguf/hf/unpermute.hpp"
#include "gguf/render/json_text.hpp"
#include "gguf/render/render.hpp"
#include "gguf/render/render_text.hpp"
#include "gguf/types.hpp"

namespace gguf::hf {

namespace {

std::optional<Dtype> stored_dtype(uint32_t type_id) {
  switch (type_id) {
    case type_id::F32:
      return Dtype::F32;
    case type_id::F16:
      return Dtype::F16;
    case type_id::BF16:
      return Dtype::BF16;
    default:
      return std::nullopt;
  }
}

std::optional<uint64_t> unsigned_key(const Model& model, const std::string& key) {
  const MetadataEntry* e = model.find(key);
  return e ? e->value.as_unsigned() : std::nullopt;
}

std::string architecture_of(const Model& model) {
  const MetadataEntry* e = model.find("general.architecture");
  return e && e->value.type == ValueType::STRING ? std::string(e->value.str) : std::string();
}

void add_unmapped(std::string& out, std::string_view name, std::string_view reason) {
  render_detail::append_escaped_line(out, name);
  out.append(": ");
  out.append(reason);
  out.push_back('\n');
}

// The heads llama's converter permuted this tensor with, or a reason it cannot be undone.
struct Heads {
  uint64_t n = 0;
  std::string problem;
};

Heads unpermute_heads(const Model& model, std::string_view arch, QkRole role, uint64_t rows) {
  const std::string count_key = fmt::format("{}.attention.head_count", arch);
  const std::string kv_key = fmt::format("{}.attention.head_count_kv", arch);
  std::optional<uint64_t> heads = unsigned_key(model, count_key);
  std::string used_key = count_key;
  if (role == QkRole::k && model.find(kv_key) != nullptr) {
    heads = unsigned_key(model, kv_key);
    used_key = kv_key;
  }
  if (!heads || *heads == 0)
    return {0, fmt::format("needs {} (a positive integer) to un-permute its rows", used_key)};
  if (!can_unpermute(rows, *heads))
    return {0, fmt::format("{} rows do not split into {} heads of two halves", rows, *heads)};
  return {*heads, {}};
}

std::string_view torch_dtype_name(Dtype d) {
  switch (d) {
    case Dtype::F16:
      return "float16";
    case Dtype::BF16:
      return "bfloat16";
    case Dtype::F32:
      break;
  }
  return "float32";
}

// The dtype holding the most values (transformers' torch_dtype names one dtype for the model).
Dtype main_dtype(const std::vector<HfTensor>& tensors) {
  std::array<uint64_t, 3> elements{};
  for (const HfTensor& t : tensors) elements[static_cast<size_t>(t.dtype)] += t.tensor->elements;
  return static_cast<Dtype>(std::max_element(elements.begin(), elements.end()) - elements.begin());
}

// Data order: sizes that are multiples of 8 first, then 4-byte, then 2-byte dtypes (see header).
void order_and_place(std::vector<HfTensor>& tensors, uint64_t& data_bytes) {
  auto rank = [](const HfTensor& t) {
    if (t.bytes() % 8 == 0) return 0;
    return dtype_size(t.dtype) == 4 ? 1 : 2;
  };
  std::stable_sort(tensors.begin(), tensors.end(),
                   [&](const HfTensor& a, const HfTensor& b) { return rank(a) < rank(b); });
  uint64_t at = 0;
  for (HfTensor& t : tensors) {
    t.offset = at;
    at += t.bytes();
  }
  data_bytes = at;
}

}  // namespace

std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::F16:
      return "F16";
    case Dtype::BF16:
      return "BF16";
    case Dtype::F32:
      break;
  }
  return "F32";
}

size_t dtype_size(Dtype d) {
  return d == Dtype::F32 ? 4 : 2;
}

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (const Dtype d : {Dtype::F32, Dtype::F16, Dtype::BF16})
    if (dtype_name(d) == name) return d;
  return std::nullopt;
}

HfView plan_hf_view(const ModelSet& models, Dtype quantized_to) {
  HfView view;
  const Model& first = *models.first();
  const std::string arch_name = architecture_of(first);
  view.arch = find_architecture(arch_name);
  if (!view.arch) {
    view.hf_names.resize(models.tensor_count());
    view.unmapped =
        fmt::format("architecture '{}' has no Hugging Face names (known: llama, qwen2, qwen3)\n",
                    escape_line(arch_name));
    return view;
  }
  std::unordered_set<std::string> seen;
  bool has_lm_head = false;
  for (size_t shard = 0; shard < models.shards.size(); ++shard) {
    const Model& model = *models.shards[shard];
    for (const TensorInfo& t : model.tensors) {
      std::string& hf_name = view.hf_names.emplace_back();
      auto found = find_hf(*view.arch, t.name);
      if (!found) {
        add_unmapped(view.unmapped, t.name, NameError(t.name).what());
        continue;
      }
      Mapped& mapped = *found;
      if (!seen.insert(mapped.name).second) {
        add_unmapped(
            view.unmapped, t.name,
            fmt::format("a second tensor named {} (only the first is shown)", mapped.name));
        continue;
      }
      const DecodedView decoded = decoded_view(model, t);
      if (!decoded.available) {
        add_unmapped(view.unmapped, t.name, decoded.reason);
        continue;
      }
      if (t.elements > (uint64_t{1} << 58)) {  // keeps every offset of the file far from 2^64
        add_unmapped(view.unmapped, t.name, "too many elements for a safetensors file");
        continue;
      }
      HfTensor h;
      h.shard = shard;
      h.tensor = &t;
      const auto stored = stored_dtype(t.type_id);
      h.stored_bytes = stored.has_value() && !model.big_endian;
      h.dtype = stored.value_or(quantized_to);
      const uint32_t n_dims = std::min<uint32_t>(t.n_dims, 4);
      for (uint32_t i = n_dims; i-- > 0;) h.shape.push_back(t.ne[i]);
      h.rows = h.shape.empty() ? 1 : h.shape.front();
      if (mapped.role != QkRole::none && view.arch->permutes_qk) {
        const Heads heads = unpermute_heads(first, arch_name, mapped.role, h.rows);
        if (heads.n == 0) {
          add_unmapped(view.unmapped, t.name, heads.problem);
          continue;
        }
        h.unpermute_heads = heads.n;
      }
      h.name = mapped.name;
      hf_name = mapped.name;
      has_lm_head = has_lm_head || t.name == "output.weight";
      view.tensors.push_back(std::move(h));
    }
  }
  order_and_place(view.tensors, view.data_bytes);
  try {
    view.config_json = render_config_json(first, *view.arch, has_lm_head,
                                          torch_dtype_name(main_dtype(view.tensors)));
  } catch (const std::runtime_error& e) {
    view.unmapped += fmt::format("config.json: {}\n", e.what());
  }
  return view;
}

std::string safetensors_header(const HfView& view) {
  std::string json = R"({"__metadata__":{"format":"pt"})";
  auto out = std::back_inserter(json);
  for (const HfTensor& t : view.tensors) {
    json.push_back(',');
    render_detail::append_json_string(json, t.name);
    fmt::format_to(out, R"(:{{"dtype":"{}","shape":[{}],"data_offsets":[{},{}]}})",
                   dtype_name(t.dtype), fmt::join(t.shape, ","), t.offset, t.offset + t.bytes());
  }
  json.push_back('}');
  json.append((8 - json.size() % 8) % 8, ' ');  // the data starts at a multiple of 8
  // More spaces so that the first tensor sits at the same offset within a 4 KiB page as in the
  // model file: its pages (and, in a model whose tensor sizes are multiples of 4 KiB, everyone
  // else's) then splice whole instead of being copied. File offsets are multiples of 8 too.
  if (!view.tensors.empty() && view.tensors.front().stored_bytes) {
    constexpr uint64_t kPage = 4096;
    const uint64_t want = view.tensors.front().tensor->file_offset % kPage;
    const uint64_t have = (8 + json.size()) % kPage;
    json.append(static_cast<size_t>((want + kPage - have) % kPage / 8 * 8), ' ');
  }
  std::string header(8, '\0');
  uint64_t n = json.size();
  for (size_t i = 0; i < 8; ++i, n >>= 8) header[i] = static_cast<char>(n & 0xff);
  return header + json;
}

std::string render_config_json(const Model& model, const Architecture& arch, bool has_lm_head,
                               std::string_view torch_dtype) {
  const std::string p = std::string(arch.name) + ".";
  auto required = [&](const std::string& suffix) {
    const auto v = unsigned_key(model, p + suffix);
    if (!v) throw std::runtime_error("missing key " + p + suffix + " (an unsigned integer)");
    return *v;
  };
  auto number = [&](const std::string& key) -> std::optional<std::string> {
    const MetadataEntry* e = model.find(key);
    const auto v = e ? e->value.as_double() : std::nullopt;
    if (!v || !std::isfinite(*v)) return std::nullopt;
    if (e->value.type == ValueType::FLOAT32) return format_float(e->value.f32());
    if (e->value.type == ValueType::FLOAT64) return format_double(*v);
    return render_scalar(e->value);  // an integer, exact
  };
  auto token_id = [&](const std::string& key) {
    const auto v = unsigned_key(model, key);
    return v ? std::to_string(*v) : std::string("null");
  };

  const uint64_t hidden = required("embedding_length");
  const uint64_t ffn = required("feed_forward_length");
  const uint64_t layers = required("block_count");
  const uint64_t heads = required("attention.head_count");
  if (heads == 0) throw std::runtime_error("key " + p + "attention.head_count is 0");
  const uint64_t kv_heads = unsigned_key(model, p + "attention.head_count_kv").value_or(heads);
  const uint64_t context = required("context_length");
  const auto eps = number(p + "attention.layer_norm_rms_epsilon");
  if (!eps) throw std::runtime_error("missing key " + p + "attention.layer_norm_rms_epsilon");
  std::optional<uint64_t> vocab = unsigned_key(model, p + "vocab_size");
  if (const MetadataEntry* tokens = model.find("tokenizer.ggml.tokens");
      !vocab && tokens && tokens->value.type == ValueType::ARRAY)
    vocab = tokens->value.array.count;
  if (!vocab)
    throw std::runtime_error("missing key " + p + "vocab_size (or tokenizer.ggml.tokens)");
  const uint64_t head_dim =
      unsigned_key(model, p + "rope.dimension_count")
          .value_or(unsigned_key(model, p + "attention.key_length").value_or(hidden / heads));
  const std::string rope_theta = number(p + "rope.freq_base").value_or("10000.0");

  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{{\n  \"architectures\": [\"{}\"],\n  \"model_type\": \"{}\",\n",
                 arch.class_name, arch.model_type);
  fmt::format_to(it,
                 "  \"hidden_size\": {},\n  \"intermediate_size\": {},\n"
                 "  \"num_hidden_layers\": {},\n  \"num_attention_heads\": {},\n"
                 "  \"num_key_value_heads\": {},\n  \"head_dim\": {},\n",
                 hidden, ffn, layers, heads, kv_heads, head_dim);
  fmt::format_to(it,
                 "  \"rms_norm_eps\": {},\n  \"rope_theta\": {},\n"
                 "  \"max_position_embeddings\": {},\n  \"vocab_size\": {},\n"
                 "  \"tie_word_embeddings\": {},\n",
                 *eps, rope_theta, context, *vocab, has_lm_head ? "false" : "true");
  fmt::format_to(it, "  \"bos_token_id\": {},\n  \"eos_token_id\": {},\n",
                 token_id("tokenizer.ggml.bos_token_id"), token_id("tokenizer.ggml.eos_token_id"));
  fmt::format_to(it, "  \"torch_dtype\": \"{}\"\n}}\n", torch_dtype);
  return out;
}

}  // namespace gguf::hf
