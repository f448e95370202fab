// JSON pieces shared by metadata.json and tensors.json (render_json.cpp) and by the nested arrays
// inside metadata/<key> files (render_value.cpp), so that both write strings and numbers one way.
#pragma once

#include <string>
#include <string_view>

#include "gguf/value.hpp"

namespace gguf::render_detail {

// s as a JSON string in quotes: '"', '\\', \n, \r and \t escaped as such, other controls and DEL
// as \u00XX, valid UTF-8 as it is. A byte that is not part of valid UTF-8 becomes \udcXX, the
// lone low surrogate U+DC00 + byte (Python's "surrogateescape"): no valid UTF-8 decodes to a
// surrogate, so the bytes can be recovered exactly, and Python's json module reads it.
// (metadata.json and tensors.json never get that far: they promise "..._hex" fields instead.)
void append_json_string(std::string& out, std::string_view s);

// A scalar as a JSON value: integers exact (64-bit too), BOOL true/false, floats in the shortest
// form. JSON has no NaN or infinity: those become the strings "nan", "-nan", "inf", "-inf" (what
// the plain-text form prints), which keeps the value instead of collapsing it to null.
void append_json_number(std::string& out, const Value& v);

// The elements of array as a JSON array, element(out, value) writing each one.
template <typename Element>
void append_json_list(std::string& out, const ArrayRef& array, std::string_view separator,
                      Element&& element) {
  out.push_back('[');
  array.for_each([&](uint64_t index, const Value& value) {
    if (index != 0) out.append(separator);
    element(out, value);
    return true;
  });
  out.push_back(']');
}

}  // namespace gguf::render_detail
