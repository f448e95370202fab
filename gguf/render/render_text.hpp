// Private building blocks of the renderers (render_*.cpp): append-style helpers so that large
// arrays render into one reserved string without temporaries. The JSON pieces are in
// json_text.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/value.hpp"

namespace gguf::render_detail {

// escape_line's rules, appended to out.
void append_escaped_line(std::string& out, std::string_view bytes);

// For human-readable single lines (warnings, names in the summary): like append_escaped_line,
// but a backslash stays a single backslash, since these lines are not meant to be un-escaped.
void append_one_line(std::string& out, std::string_view bytes);

// prefix, then the line with append_one_line's escapes, then a newline, for each line: the
// warning lists of info, summary.txt and `gguffs check`.
void append_each_line(std::string& out, std::string_view prefix,
                      const std::vector<std::string>& lines);

// The escapes both escape_line and JSON write the same way: \n, \r and \t. Appends one and
// returns true when byte is one of those three.
bool append_short_escape(std::string& out, unsigned char byte);

// render_scalar's rules, appended to out. An ARRAY appends "[N x TYPE]".
void append_scalar(std::string& out, const Value& v);

// Lowercase hex, two digits per byte: the "..._hex" fields of the JSON files and the digits of
// every escape (\xHH, \u00HH, \udcHH).
void append_hex(std::string& out, std::string_view bytes);
void append_hex_byte(std::string& out, unsigned char byte);

// 1234567 -> "1,234,567" (Java's "%,d").
std::string group_digits(uint64_t n);

}  // namespace gguf::render_detail
