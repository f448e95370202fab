// metadata.json, tensors.tsv and tensors.json (rules in render_json.hpp).
//
// Written by hand into one reserved string rather than through a JSON library's document:
// a 150,000-token vocabulary would otherwise become 150,000 heap nodes just to be printed once,
// and the exact number formats (shortest floats, 64-bit integers, "nan") are ours anyway.
#include "gguf/render_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <unordered_set>

#include "gguf/render.hpp"
#include "gguf/render_text.hpp"

namespace gguf {

namespace {

using render_detail::append_escaped_line;
using render_detail::append_scalar;
using render_detail::utf8_sequence_length;

constexpr char kHex[] = "0123456789abcdef";

void append_hex(std::string& out, std::string_view bytes) {
  out.reserve(out.size() + bytes.size() * 2);
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
}

// A JSON string of valid UTF-8 text. Runs of bytes that need no escape go in with one append.
void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7F) continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default: {
        const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out.append(esc, 6);
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

// A number; non-finite floats as the strings "nan", "-nan", "inf", "-inf".
void append_json_number(std::string& out, const Value& v) {
  bool finite = true;
  if (v.type == ValueType::FLOAT32) finite = std::isfinite(v.f32());
  if (v.type == ValueType::FLOAT64) finite = std::isfinite(v.f64());
  if (!finite) out.push_back('"');
  append_scalar(out, v);  // integers exact, BOOL true/false, floats shortest
  if (!finite) out.push_back('"');
}

void append_json_array_fields(std::string& out, const ArrayRef& array);

// One element of an array.
void append_json_element(std::string& out, const Value& v) {
  switch (v.type) {
    case ValueType::STRING:
      if (is_valid_utf8(v.str)) {
        append_json_string(out, v.str);
      } else {
        out.append("{\"hex\": \"");
        append_hex(out, v.str);
        out.append("\"}");
      }
      return;
    case ValueType::ARRAY:
      out.push_back('{');
      append_json_array_fields(out, v.array);
      out.push_back('}');
      return;
    default:
      append_json_number(out, v);
  }
}

// "element_type": ..., "count": ..., "value": [...]
void append_json_array_fields(std::string& out, const ArrayRef& array) {
  fmt::format_to(std::back_inserter(out), "\"element_type\": \"{}\", \"count\": {}, \"value\": [",
                 value_type_name(array.element_type), array.count);
  array.for_each([&out](uint64_t index, const Value& element) {
    if (index != 0) out.append(", ");
    append_json_element(out, element);
    return true;
  });
  out.push_back(']');
}

// The object describing one metadata value (after its name); extra fields go after "type".
void append_json_value_object(std::string& out, const Value& v, std::string_view extra) {
  out.append("{\"type\": \"");
  out.append(value_type_name(v.type));
  out.append("\", ");
  out.append(extra);
  switch (v.type) {
    case ValueType::STRING:
      if (is_valid_utf8(v.str)) {
        out.append("\"value\": ");
        append_json_string(out, v.str);
      } else {
        out.append("\"value_hex\": \"");
        append_hex(out, v.str);
        out.push_back('"');
      }
      break;
    case ValueType::ARRAY:
      append_json_array_fields(out, v.array);
      break;
    default:
      out.append("\"value\": ");
      append_json_number(out, v);
  }
  out.push_back('}');
}

// A name for JSON text: itself when valid UTF-8, else escape_line's form.
std::string printable_name(std::string_view bytes) {
  return is_valid_utf8(bytes) ? std::string(bytes) : escape_line(bytes);
}

// Room for the text of an array: its encoded size bounds string arrays well; numbers take about
// three characters per encoded byte plus the separators.
size_t estimate_array_text(const ArrayRef& array) {
  if (array.element_type == ValueType::STRING || array.element_type == ValueType::ARRAY)
    return array.bytes.size() + array.count * 2;
  return array.bytes.size() * 3 + array.count * 2;
}

template <typename F>
void for_each_tensor(const std::vector<const Model*>& models, F&& f) {
  for (const Model* m : models)
    for (const TensorInfo& t : m->tensors) f(t);
}

std::string_view type_name_of(const TensorInfo& t) {
  const auto type = tensor_type(t.type_id);
  return type ? type->name : std::string_view("unknown");
}

uint32_t dims_of(const TensorInfo& t) {
  return t.n_dims < t.ne.size() ? t.n_dims : static_cast<uint32_t>(t.ne.size());
}

}  // namespace

bool is_valid_utf8(std::string_view bytes) {
  size_t i = 0;
  while (i < bytes.size()) {
    const size_t len = utf8_sequence_length(bytes, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::string value_type_label(const Value& v) {
  std::string label(value_type_name(v.type));
  if (v.type == ValueType::ARRAY) {
    label += '[';
    label += value_type_name(v.array.element_type);
    label += ']';
  }
  return label;
}

std::string render_metadata_json(const Model& model) {
  size_t estimate = 4;
  for (const MetadataEntry& e : model.metadata) {
    estimate += e.key.size() + 64;
    if (e.value.type == ValueType::STRING) estimate += e.value.str.size() + e.value.str.size() / 8;
    if (e.value.type == ValueType::ARRAY) estimate += estimate_array_text(e.value.array);
  }
  std::string out;
  out.reserve(estimate);
  out.append("{");
  std::unordered_set<std::string> names;
  bool first = true;
  for (const MetadataEntry& e : model.metadata) {
    out.append(first ? "\n  " : ",\n  ");
    first = false;
    const std::string base = printable_name(e.key);
    std::string name = base;
    for (uint64_t k = 2; names.count(name) != 0; ++k) name = base + "~" + std::to_string(k);
    names.insert(name);

    // The original key, when the name is not exactly it.
    std::string key_field;
    if (!is_valid_utf8(e.key)) {
      key_field = "\"key_hex\": \"";
      append_hex(key_field, e.key);
      key_field += "\", ";
    } else if (name != e.key) {
      key_field = "\"key\": ";
      append_json_string(key_field, e.key);
      key_field += ", ";
    }
    append_json_string(out, name);
    out.append(": ");
    append_json_value_object(out, e.value, key_field);
  }
  out.append(first ? "}\n" : "\n}\n");
  return out;
}

std::string render_tensors_tsv(const std::vector<const Model*>& models) {
  std::string out;
  auto it = std::back_inserter(out);
  out.append(kTensorsTsvHeader);
  out.push_back('\n');
  for_each_tensor(models, [&](const TensorInfo& t) {
    append_escaped_line(out, t.name);
    out.push_back('\t');
    out.append(type_name_of(t));
    const uint32_t n = dims_of(t);
    out.push_back('\t');
    for (uint32_t i = 0; i < n; ++i) fmt::format_to(it, "{}{}", i == 0 ? "" : " ", t.ne[i]);
    out.push_back('\t');
    for (uint32_t i = n; i-- > 0;) fmt::format_to(it, "{}{}", i + 1 == n ? "" : " ", t.ne[i]);
    fmt::format_to(it, "\t{}\t{}\t{}\t{}\n", t.elements, t.bytes, t.offset, t.file_offset);
  });
  return out;
}

std::string render_tensors_json(const std::vector<const Model*>& models) {
  std::string out;
  auto it = std::back_inserter(out);
  out.append("[");
  bool first = true;
  for_each_tensor(models, [&](const TensorInfo& t) {
    out.append(first ? "\n  {\"name\": " : ",\n  {\"name\": ");
    first = false;
    append_json_string(out, printable_name(t.name));
    if (!is_valid_utf8(t.name)) {
      out.append(", \"name_hex\": \"");
      append_hex(out, t.name);
      out.push_back('"');
    }
    out.append(", \"type\": ");
    append_json_string(out, type_name_of(t));
    const uint32_t n = dims_of(t);
    out.append(", \"ne\": [");
    for (uint32_t i = 0; i < n; ++i) fmt::format_to(it, "{}{}", i == 0 ? "" : ", ", t.ne[i]);
    out.append("], \"shape\": [");
    for (uint32_t i = n; i-- > 0;) fmt::format_to(it, "{}{}", i + 1 == n ? "" : ", ", t.ne[i]);
    fmt::format_to(it, "], \"elements\": {}, \"bytes\": {}, \"offset\": {}, \"file_offset\": {}}}",
                   t.elements, t.bytes, t.offset, t.file_offset);
  });
  out.append(first ? "]\n" : "\n]\n");
  return out;
}

}  // namespace gguf
