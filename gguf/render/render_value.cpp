// metadata/<key> contents: scalars, strings and arrays as text (see render.hpp for the rules).
#include "gguf/render/json_text.hpp"
#include "gguf/render/render.hpp"
#include "gguf/render/render_text.hpp"

namespace gguf {

namespace {

using namespace render_detail;

// An array element that is itself an array, on one line: [1,2,3], ["a","b"], [[1],[2]].
void append_nested_array(std::string& out, const ArrayRef& array) {
  append_json_list(out, array, ",", [](std::string& text, const Value& element) {
    if (element.type == ValueType::STRING)
      append_json_string(text, element.str);
    else if (element.type == ValueType::ARRAY)
      append_nested_array(text, element.array);
    else
      append_json_number(text, element);
  });
}

}  // namespace

std::string render_metadata_file(const Value& v) {
  std::string out;
  if (v.type == ValueType::STRING) return std::string(v.str);
  if (v.type != ValueType::ARRAY) {
    append_scalar(out, v);
    out.push_back('\n');
    return out;
  }

  const ArrayRef& array = v.array;
  // Strings: the encoded bytes (8-byte lengths included) bound the text well. Numbers: about
  // three characters per encoded byte plus a newline covers even INT8 "-128".
  if (array.element_type == ValueType::STRING || array.element_type == ValueType::ARRAY) {
    out.reserve(array.bytes.size() + array.bytes.size() / 8);
  } else {
    out.reserve(array.bytes.size() * 3 + array.count * 2);
  }
  array.for_each([&out](uint64_t, const Value& element) {
    switch (element.type) {
      case ValueType::STRING:
        append_escaped_line(out, element.str);
        break;
      case ValueType::ARRAY:
        append_nested_array(out, element.array);
        break;
      default:
        append_scalar(out, element);
        break;
    }
    out.push_back('\n');
    return true;
  });
  return out;
}

}  // namespace gguf
