#include "gguf/edit/value_text.hpp"

#include <fmt/format.h>

#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>

#include "gguf/render/render.hpp"

namespace gguf {

namespace {

// Nested arrays deeper than the parser accepts (ParseOptions::max_array_depth) are refused.
constexpr size_t kMaxChain = 9;

[[noreturn]] void fail(const std::string& reason) {
  throw ValueTextError(reason);
}

// "line 3: " inside arrays, "" for a scalar.
std::string at_line(size_t line) {
  return line == 0 ? std::string() : fmt::format("line {}: ", line);
}

// A short, printable quote of what was given, for messages.
std::string quote(std::string_view text) {
  constexpr size_t kMax = 40;
  std::string shown = escape_line(text.substr(0, kMax));
  return "'" + shown + (text.size() > kMax ? "...'" : "'");
}

void put_number(std::string& out, uint64_t bits, uint32_t size, bool big_endian) {
  for (uint32_t i = 0; i < size; ++i) {
    const uint32_t shift = big_endian ? 8 * (size - 1 - i) : 8 * i;
    out.push_back(static_cast<char>((bits >> shift) & 0xFF));
  }
}

void put_u32(std::string& out, uint32_t v, bool be) {
  put_number(out, v, 4, be);
}
void put_u64(std::string& out, uint64_t v, bool be) {
  put_number(out, v, 8, be);
}
void put_string(std::string& out, std::string_view s, bool be) {
  put_u64(out, s.size(), be);
  out.append(s);
}

struct IntRange {
  bool is_signed;
  int64_t min;
  uint64_t max;
};

IntRange int_range(ValueType t) {
  switch (t) {
    case ValueType::UINT8:
      return {false, 0, 0xFF};
    case ValueType::INT8:
      return {true, -128, 127};
    case ValueType::UINT16:
      return {false, 0, 0xFFFF};
    case ValueType::INT16:
      return {true, -32768, 32767};
    case ValueType::UINT32:
      return {false, 0, 0xFFFFFFFFu};
    case ValueType::INT32:
      return {true, std::numeric_limits<int32_t>::min(), 0x7FFFFFFF};
    case ValueType::UINT64:
      return {false, 0, std::numeric_limits<uint64_t>::max()};
    default:  // INT64
      return {true, std::numeric_limits<int64_t>::min(),
              static_cast<uint64_t>(std::numeric_limits<int64_t>::max())};
  }
}

uint64_t parse_integer(ValueType t, std::string_view token, size_t line) {
  const IntRange range = int_range(t);
  const char* first = token.data();
  const char* last = first + token.size();
  const auto name = value_type_name(t);
  if (token.empty()) fail(at_line(line) + fmt::format("expected a {} integer, got nothing", name));
  if (range.is_signed) {
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(first, last, v);
    if (ec == std::errc::result_out_of_range ||
        (ec == std::errc() && end == last && (v < range.min || v > int64_t(range.max))))
      fail(at_line(line) + fmt::format("{} is out of range for {}", quote(token), name));
    if (ec != std::errc() || end != last)
      fail(at_line(line) + fmt::format("{} is not a decimal {} integer", quote(token), name));
    return static_cast<uint64_t>(v);
  }
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(first, last, v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && end == last && v > range.max) ||
      (token.front() == '-' && token.size() > 1 && std::isdigit(uint8_t(token[1])) != 0))
    fail(at_line(line) + fmt::format("{} is out of range for {}", quote(token), name));
  if (ec != std::errc() || end != last)
    fail(at_line(line) + fmt::format("{} is not a decimal {} integer", quote(token), name));
  return v;
}

template <typename Float>
Float parse_float_text(std::string_view token, size_t line, std::string_view name) {
  Float v = 0;
  const char* last = token.data() + token.size();
  // from_chars reads "nan" and "inf" (as the renderer writes them) but no '+' and no hex.
  const auto [end, ec] = std::from_chars(token.data(), last, v, std::chars_format::general);
  if (ec == std::errc::result_out_of_range)
    fail(at_line(line) + fmt::format("{} is out of range for {}", quote(token), name));
  if (ec != std::errc() || end != last || token.empty())
    fail(at_line(line) + fmt::format("{} is not a {} number", quote(token), name));
  return v;
}

uint64_t parse_bool(std::string_view token, size_t line) {
  if (token == "true") return 1;
  if (token == "false") return 0;
  fail(at_line(line) + fmt::format("{} is not a BOOL (true or false)", quote(token)));
}

// The bits of a fixed-size scalar written as token.
uint64_t parse_scalar_bits(ValueType t, std::string_view token, size_t line) {
  switch (t) {
    case ValueType::BOOL:
      return parse_bool(token, line);
    case ValueType::FLOAT32:
      return std::bit_cast<uint32_t>(parse_float_text<float>(token, line, "FLOAT32"));
    case ValueType::FLOAT64:
      return std::bit_cast<uint64_t>(parse_float_text<double>(token, line, "FLOAT64"));
    default:
      return parse_integer(t, token, line);
  }
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One array line of strings with escape_line's escapes undone.
std::string unescape_line(std::string_view text, size_t line) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (i + 1 == text.size()) fail(at_line(line) + "a lone '\\' at the end of the line");
    const char e = text[++i];
    switch (e) {
      case '\\':
        out.push_back('\\');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'x': {
        const int hi = i + 1 < text.size() ? hex_digit(text[i + 1]) : -1;
        const int lo = i + 2 < text.size() ? hex_digit(text[i + 2]) : -1;
        if (hi < 0 || lo < 0)
          fail(at_line(line) + fmt::format("byte {}: \\x needs two hex digits", i));
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        break;
      }
      default:
        fail(at_line(line) + fmt::format("byte {}: unknown escape {} (use \\\\ for a backslash)",
                                         i - 1, quote(text.substr(i - 1, 2))));
    }
  }
  return out;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// One line holding a JSON array (an element of a nested array), parsed by recursive descent
// straight into its encoding.
class JsonArrayReader {
 public:
  JsonArrayReader(std::string_view text, size_t line, bool big_endian)
      : text_(text), line_(line), be_(big_endian) {}

  // The encoding of the array at the start of the text, whose type is chain (chain[0] = ARRAY);
  // the whole line must be consumed.
  void read_line(const ValueType* chain, size_t chain_size, std::string& out) {
    array(chain, chain_size, out);
    skip_space();
    if (at_ < text_.size()) error("unexpected text after the array");
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    fail(at_line(line_) + fmt::format("byte {}: {}", at_, what));
  }
  void skip_space() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\r'))
      ++at_;
  }
  bool take(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  void array(const ValueType* chain, size_t chain_size, std::string& out) {
    if (!take('[')) error("expected '[' (a nested array is written as JSON)");
    // A chain ending in ARRAY: the element type is unknown, so only an empty array can be read.
    const bool inner_known = chain_size > 1;
    const ValueType element = inner_known ? chain[1] : ValueType::UINT8;
    put_u32(out, static_cast<uint32_t>(element), be_);
    const size_t count_at = out.size();
    put_u64(out, 0, be_);
    uint64_t count = 0;
    if (!take(']')) {
      do {
        if (!inner_known)
          error("the element type of this nested array is unknown (set user.gguf.type)");
        value(chain + 1, chain_size - 1, out);
        ++count;
      } while (take(','));
      if (!take(']')) error("expected ',' or ']'");
    }
    std::string n;
    put_u64(n, count, be_);
    out.replace(count_at, 8, n);
  }

  void value(const ValueType* chain, size_t chain_size, std::string& out) {
    const ValueType t = chain[0];
    if (t == ValueType::ARRAY) return array(chain, chain_size, out);
    skip_space();
    if (t == ValueType::STRING) return put_string(out, string(), be_);
    std::string token;
    if (at_ < text_.size() && text_[at_] == '"') {
      // JSON has no nan or inf: the renderer writes them as strings.
      token = string();
      if (t != ValueType::FLOAT32 && t != ValueType::FLOAT64)
        error(fmt::format("expected a {}, got a string", value_type_name(t)));
    } else {
      const size_t start = at_;
      while (at_ < text_.size() && text_[at_] != ',' && text_[at_] != ']' && text_[at_] != ' ')
        ++at_;
      token = std::string(text_.substr(start, at_ - start));
    }
    put_number(out, parse_scalar_bits(t, token, line_), value_type_size(t), be_);
  }

  uint32_t hex4() {
    if (at_ + 4 > text_.size()) error("\\u needs four hex digits");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const int d = hex_digit(text_[at_++]);
      if (d < 0) error("\\u needs four hex digits");
      v = v * 16 + static_cast<uint32_t>(d);
    }
    return v;
  }

  std::string string() {
    if (!take('"')) error("expected a JSON string");
    std::string out;
    while (true) {
      if (at_ >= text_.size()) error("unterminated string");
      const char c = text_[at_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (at_ >= text_.size()) error("unterminated string");
      const char e = text_[at_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out.push_back(e);
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xDC80 && cp <= 0xDCFF) {  // a byte outside valid UTF-8 (surrogateescape)
            out.push_back(static_cast<char>(cp - 0xDC00));
            break;
          }
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (at_ + 2 > text_.size() || text_[at_] != '\\' || text_[at_ + 1] != 'u')
              error("a high surrogate without its low surrogate");
            at_ += 2;
            const uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) error("a high surrogate without its low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            error("a lone low surrogate");
          }
          append_utf8(out, cp);
          break;
        }
        default:
          error(fmt::format("unknown escape '\\{}'", e));
      }
    }
  }

  std::string_view text_;
  size_t line_;
  bool be_;
  size_t at_ = 0;
};

// The text without the one trailing newline a scalar file may end with.
std::string_view scalar_token(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  return text;
}

void encode_array(const TypeSpec& spec, std::string_view text, bool be, std::string& out) {
  if (spec.chain.size() < 2) fail("the array's element type is unknown");
  const ValueType element = spec.chain[1];
  put_u32(out, static_cast<uint32_t>(element), be);
  const size_t count_at = out.size();
  put_u64(out, 0, be);
  uint64_t count = 0;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string_view::npos ? text.size() : nl;
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++count;
    switch (element) {
      case ValueType::STRING:
        put_string(out, unescape_line(line, count), be);
        break;
      case ValueType::ARRAY:
        JsonArrayReader(line, count, be)
            .read_line(spec.chain.data() + 1, spec.chain.size() - 1, out);
        break;
      default:
        put_number(out, parse_scalar_bits(element, line, count), value_type_size(element), be);
        break;
    }
  }
  std::string n;
  put_u64(n, count, be);
  out.replace(count_at, 8, n);
}

}  // namespace

namespace {

std::vector<ValueType> parse_chain(std::string_view whole, std::string_view name, bool top) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper.starts_with("ARRAY[") && upper.ends_with("]")) {
    std::vector<ValueType> chain{ValueType::ARRAY};
    const auto inner = parse_chain(whole, name.substr(6, name.size() - 7), false);
    chain.insert(chain.end(), inner.begin(), inner.end());
    if (chain.size() > kMaxChain) fail(fmt::format("{}: arrays nest too deep", quote(whole)));
    return chain;
  }
  if (upper == "ARRAY" && !top) return {ValueType::ARRAY};  // nested, element type unknown
  for (uint32_t id = 0; id < kValueTypeCount; ++id) {
    const auto t = static_cast<ValueType>(id);
    if (t != ValueType::ARRAY && upper == value_type_name(t)) return {t};
  }
  fail(fmt::format("{} is not a type name (UINT8 ... FLOAT64, BOOL, STRING, ARRAY[TYPE])",
                   quote(whole)));
}

}  // namespace

TypeSpec parse_type_spec(std::string_view name) {
  return TypeSpec{parse_chain(name, name, true)};
}

std::string type_spec_name(const TypeSpec& spec) {
  std::string name;
  size_t open = 0;
  for (size_t i = 0; i < spec.chain.size(); ++i) {
    if (i != 0) {
      name += '[';
      ++open;
    }
    name += value_type_name(spec.chain[i]);
  }
  name.append(open, ']');
  return name;
}

TypeSpec type_spec_of(const Value& v) {
  TypeSpec spec{{v.type}};
  if (v.type != ValueType::ARRAY) return spec;
  if (v.array.element_type != ValueType::ARRAY) {
    spec.chain.push_back(v.array.element_type);
    return spec;
  }
  bool found = false;
  v.array.for_each([&](uint64_t, const Value& first) {
    const TypeSpec inner = type_spec_of(first);
    spec.chain.insert(spec.chain.end(), inner.chain.begin(), inner.chain.end());
    found = true;
    return false;
  });
  if (!found) spec.chain.push_back(ValueType::ARRAY);
  return spec;
}

std::string encode_value_text(const TypeSpec& spec, std::string_view text, bool big_endian) {
  if (spec.chain.empty()) fail("no type");
  std::string out;
  switch (spec.type()) {
    case ValueType::STRING:
      put_string(out, text, big_endian);
      break;
    case ValueType::ARRAY:
      encode_array(spec, text, big_endian, out);
      break;
    default: {
      const ValueType t = spec.type();
      const std::string_view token = scalar_token(text);
      if (token.find('\n') != std::string_view::npos)
        fail(fmt::format("a {} is one line, got {}", value_type_name(t), quote(text)));
      put_number(out, parse_scalar_bits(t, token, 0), value_type_size(t), big_endian);
      break;
    }
  }
  return out;
}

}  // namespace gguf
