// Private building blocks of the renderers (render_*.cpp): append-style helpers so that large
// arrays render into one reserved string without temporaries. The JSON pieces are in
// json_text.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gguf/value.hpp"

namespace gguf::render_detail {

// escape_line's rules, appended to out.
void append_escaped_line(std::string& out, std::string_view bytes);

// For human-readable single lines (warnings, names in the summary): like append_escaped_line,
// but a backslash stays a single backslash, since these lines are not meant to be un-escaped.
void append_one_line(std::string& out, std::string_view bytes);

// render_scalar's rules, appended to out. An ARRAY appends "[N x TYPE]".
void append_scalar(std::string& out, const Value& v);

// Lowercase hex, two digits per byte: the "..._hex" fields of the JSON files and the digits of
// every escape (\xHH, \u00HH, \udcHH).
void append_hex(std::string& out, std::string_view bytes);
void append_hex_byte(std::string& out, unsigned char byte);

// 1234567 -> "1,234,567" (Java's "%,d").
std::string group_digits(uint64_t n);

}  // namespace gguf::render_detail
