// JSON strings and numbers (rules in json_text.hpp).
#include "gguf/render/json_text.hpp"

#include <cmath>

#include "gguf/render/render_text.hpp"
#include "gguf/render/utf8.hpp"

namespace gguf::render_detail {

namespace {

// Inside a JSON string every printable ASCII character but the quote and the backslash passes.
constexpr auto is_json_ascii = [](unsigned char c) {
  return c >= 0x20 && c != 0x7F && c != '"' && c != '\\';
};
constexpr Utf8Screen kJsonScreen(is_json_ascii);

void escape_json_byte(std::string& out, unsigned char c) {
  if (c == '"' || c == '\\') {
    out.push_back('\\');
    out.push_back(static_cast<char>(c));
  } else if (!append_short_escape(out, c)) {
    // Controls and DEL as themselves, bytes outside valid UTF-8 as lone surrogates.
    out.append(c < 0x80 ? "\\u00" : "\\udc");
    append_hex_byte(out, c);
  }
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  kJsonScreen.append_escaped(out, s, escape_json_byte);
  out.push_back('"');
}

void append_json_number(std::string& out, const Value& v) {
  bool finite = true;
  if (v.type == ValueType::FLOAT32) finite = std::isfinite(v.f32());
  if (v.type == ValueType::FLOAT64) finite = std::isfinite(v.f64());
  if (!finite) out.push_back('"');
  append_scalar(out, v);
  if (!finite) out.push_back('"');
}

}  // namespace gguf::render_detail
