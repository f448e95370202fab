// metadata.json, tensors.tsv and tensors.json (rules in render_json.hpp).
//
// Written by hand into one reserved string rather than through a JSON library's document:
// a 150,000-token vocabulary would otherwise become 150,000 heap nodes just to be printed once,
// and the exact number formats (shortest floats, 64-bit integers, "nan") are ours anyway.
#include "gguf/render/render_json.hpp"

#include <fmt/format.h>

#include <iterator>
#include <unordered_set>

#include "gguf/render/json_text.hpp"
#include "gguf/render/render.hpp"
#include "gguf/render/render_text.hpp"
#include "gguf/render/utf8.hpp"

namespace gguf {

namespace {

using render_detail::append_escaped_line;
using render_detail::append_hex;
using render_detail::append_json_list;
using render_detail::append_json_number;
using render_detail::append_json_string;

// "name": "<bytes in hex>": the exact bytes of a string that is not valid UTF-8 (this file
// promises them as hex rather than as json_text's surrogate escapes).
void append_hex_field(std::string& out, std::string_view name, std::string_view bytes) {
  out.push_back('"');
  out.append(name);
  out.append("\": \"");
  append_hex(out, bytes);
  out.push_back('"');
}

void append_json_array_fields(std::string& out, const ArrayRef& array);

// One element of an array.
void append_json_element(std::string& out, const Value& v) {
  switch (v.type) {
    case ValueType::STRING:
      if (is_valid_utf8(v.str)) {
        append_json_string(out, v.str);
      } else {
        out.push_back('{');
        append_hex_field(out, "hex", v.str);
        out.push_back('}');
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
  fmt::format_to(std::back_inserter(out), "\"element_type\": \"{}\", \"count\": {}, \"value\": ",
                 value_type_name(array.element_type), array.count);
  append_json_list(out, array, ", ", append_json_element);
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
        append_hex_field(out, "value_hex", v.str);
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
      append_hex_field(key_field, "key_hex", e.key);
      key_field += ", ";
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

std::string render_tensors_tsv(const std::vector<const Model*>& models,
                               const std::vector<std::string>& hf_names) {
  size_t index = 0;
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
    fmt::format_to(it, "\t{}\t{}\t{}\t{}\t{}\n", t.elements, t.bytes, t.offset, t.file_offset,
                   index < hf_names.size() ? hf_names[index] : std::string());
    ++index;
  });
  return out;
}

std::string render_tensors_json(const std::vector<const Model*>& models,
                                const std::vector<std::string>& hf_names) {
  size_t index = 0;
  std::string out;
  auto it = std::back_inserter(out);
  out.append("[");
  bool first = true;
  for_each_tensor(models, [&](const TensorInfo& t) {
    out.append(first ? "\n  {\"name\": " : ",\n  {\"name\": ");
    first = false;
    append_json_string(out, printable_name(t.name));
    if (!is_valid_utf8(t.name)) {
      out.append(", ");
      append_hex_field(out, "name_hex", t.name);
    }
    out.append(", \"type\": ");
    append_json_string(out, type_name_of(t));
    const uint32_t n = dims_of(t);
    out.append(", \"ne\": [");
    for (uint32_t i = 0; i < n; ++i) fmt::format_to(it, "{}{}", i == 0 ? "" : ", ", t.ne[i]);
    out.append("], \"shape\": [");
    for (uint32_t i = n; i-- > 0;) fmt::format_to(it, "{}{}", i + 1 == n ? "" : ", ", t.ne[i]);
    fmt::format_to(it, "], \"elements\": {}, \"bytes\": {}, \"offset\": {}, \"file_offset\": {}",
                   t.elements, t.bytes, t.offset, t.file_offset);
    // The Hugging Face name, or null.
    out.append(", \"hf_name\": ");
    if (index < hf_names.size() && !hf_names[index].empty())
      append_json_string(out, hf_names[index]);
    else
      out.append("null");
    ++index;
    out.push_back('}');
  });
  out.append(first ? "]\n" : "\n]\n");
  return out;
}

}  // namespace gguf
