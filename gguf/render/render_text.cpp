// Scalars and single lines as text: the helpers of render_text.hpp and the public format_float,
// escape_line and render_scalar (render.hpp).
#include "gguf/render/render_text.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>

#include "gguf/render/render.hpp"
#include "gguf/render/utf8.hpp"

namespace gguf {

namespace render_detail {

namespace {

// A line passes as it is when it is valid UTF-8 made of printable characters; the backslash is
// escaped too, since it is the escape character.
constexpr auto is_line_ascii = [](unsigned char c) { return c >= 0x20 && c < 0x7F && c != '\\'; };
constexpr Utf8Screen kLineScreen(is_line_ascii);

template <bool kDoubleBackslash>
void escape_line_byte(std::string& out, unsigned char c) {
  if (c == '\\') {
    out.append(kDoubleBackslash ? "\\\\" : "\\");
  } else if (!append_short_escape(out, c)) {
    out.append("\\x");  // other controls, DEL, bytes that are not part of valid UTF-8
    append_hex_byte(out, c);
  }
}

// fmt's "{}" (shortest round trip) compiled ahead, into a stack buffer: a 150,000-entry scores
// array spends its time here.
template <typename Float>
void append_shortest(std::string& out, Float v) {
  char text[32];  // "-1.2345678901234567e-308" is 24 characters
  const char* end = fmt::format_to(text, FMT_COMPILE("{}"), v);
  out.append(text, static_cast<size_t>(end - text));
}

template <typename Int>
void append_int(std::string& out, Int v) {
  const fmt::format_int text(v);
  out.append(text.data(), text.size());
}

constexpr char kHexDigits[] = "0123456789abcdef";

}  // namespace

void append_escaped_line(std::string& out, std::string_view bytes) {
  kLineScreen.append_escaped(out, bytes, escape_line_byte<true>);
}

void append_one_line(std::string& out, std::string_view bytes) {
  kLineScreen.append_escaped(out, bytes, escape_line_byte<false>);
}

void append_each_line(std::string& out, std::string_view prefix,
                      const std::vector<std::string>& lines) {
  for (const std::string& line : lines) {
    out.append(prefix);
    append_one_line(out, line);
    out.push_back('\n');
  }
}

bool append_short_escape(std::string& out, unsigned char byte) {
  switch (byte) {
    case '\n':
      out.append("\\n");
      return true;
    case '\r':
      out.append("\\r");
      return true;
    case '\t':
      out.append("\\t");
      return true;
    default:
      return false;
  }
}

void append_hex_byte(std::string& out, unsigned char byte) {
  out.push_back(kHexDigits[byte >> 4]);
  out.push_back(kHexDigits[byte & 15]);
}

void append_hex(std::string& out, std::string_view bytes) {
  out.reserve(out.size() + bytes.size() * 2);
  for (const char ch : bytes) append_hex_byte(out, static_cast<unsigned char>(ch));
}

void append_scalar(std::string& out, const Value& v) {
  // Cast to the value's own width, so a Value built without sign extension still prints right.
  switch (v.type) {
    case ValueType::UINT8:
      append_int(out, static_cast<unsigned>(static_cast<uint8_t>(v.bits)));
      return;
    case ValueType::INT8:
      append_int(out, static_cast<int>(static_cast<int8_t>(v.bits)));
      return;
    case ValueType::UINT16:
      append_int(out, static_cast<unsigned>(static_cast<uint16_t>(v.bits)));
      return;
    case ValueType::INT16:
      append_int(out, static_cast<int>(static_cast<int16_t>(v.bits)));
      return;
    case ValueType::UINT32:
      append_int(out, static_cast<uint32_t>(v.bits));
      return;
    case ValueType::INT32:
      append_int(out, static_cast<int32_t>(v.bits));
      return;
    case ValueType::UINT64:
      append_int(out, v.bits);
      return;
    case ValueType::INT64:
      append_int(out, static_cast<int64_t>(v.bits));
      return;
    case ValueType::BOOL:
      out.append(v.bits != 0 ? "true" : "false");
      return;
    case ValueType::FLOAT32:
      append_shortest(out, v.f32());
      return;
    case ValueType::FLOAT64:
      append_shortest(out, v.f64());
      return;
    case ValueType::STRING:
      out.append(v.str);
      return;
    case ValueType::ARRAY:
      fmt::format_to(std::back_inserter(out), "[{} x {}]", v.array.count,
                     value_type_name(v.array.element_type));
      return;
  }
  fmt::format_to(std::back_inserter(out), "(invalid value type {})", static_cast<uint32_t>(v.type));
}

std::string group_digits(uint64_t n) {
  const fmt::format_int digits(n);
  const std::string_view s(digits.data(), digits.size());
  std::string out;
  out.reserve(s.size() + s.size() / 3);
  for (size_t i = 0; i < s.size(); ++i) {
    if (i != 0 && (s.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(s[i]);
  }
  return out;
}

}  // namespace render_detail

using namespace render_detail;

std::string format_float(float v) {
  std::string out;
  append_shortest(out, v);
  return out;
}
std::string format_double(double v) {
  std::string out;
  append_shortest(out, v);
  return out;
}

std::string escape_line(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  append_escaped_line(out, bytes);
  return out;
}

std::string render_scalar(const Value& v) {
  std::string out;
  append_scalar(out, v);
  return out;
}

}  // namespace gguf
