// metadata/<key> contents: scalars, strings and arrays as text (see render.hpp for the rules).
#include <fmt/compile.h>
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>
#include <iterator>

#include "gguf/render.hpp"
#include "gguf/render_text.hpp"

namespace gguf {

namespace render_detail {

namespace {

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighBits = 0x8080808080808080ULL;

bool has_zero_byte(uint64_t v) {
  return ((v - kOnes) & ~v & kHighBits) != 0;
}

// True when all eight bytes are printable ASCII (0x20..0x7E) other than a backslash: the common
// case of a token, which can then be copied without looking at each byte.
bool all_plain(uint64_t x) {
  if ((x & kHighBits) != 0) return false;
  if (((x - kOnes * 0x20) & ~x & kHighBits) != 0) return false;  // a byte below 0x20
  if (has_zero_byte(x ^ (kOnes * 0x7F))) return false;
  return !has_zero_byte(x ^ (kOnes * '\\'));
}

bool is_plain(unsigned char c) {
  return c >= 0x20 && c < 0x7F && c != '\\';
}

constexpr char kHex[] = "0123456789abcdef";

void append_hex_escape(std::string& out, unsigned char c) {
  const char esc[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
  out.append(esc, 4);
}

// Where the bytes that need no escape (printable ASCII other than a backslash, and valid UTF-8
// sequences) end, from s[i] on. Finding the whole run first means one append per run instead
// of one per character: byte-level BPE vocabularies are full of two-byte characters.
size_t clean_run_end(std::string_view s, size_t i) {
  const size_t n = s.size();
  while (i < n) {
    if (i + 8 <= n) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if (all_plain(word)) {
        i += 8;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (is_plain(c)) {
      ++i;
    } else if (c >= 0x80) {
      const size_t len = utf8_sequence_length(s, i);
      if (len == 0) break;
      i += len;
    } else {
      break;
    }
  }
  return i;
}

// A table-driven UTF-8 automaton answers "does this string need any escape?" with one table
// step per byte and no data-dependent branches; byte-level BPE vocabularies mix one- and
// two-byte characters at random, which defeats a branchy scanner. States are pre-multiplied
// row offsets; kReject absorbs, so the loop needs no early exit.
enum ByteClass : uint32_t {
  kPlain,    // printable ASCII other than a backslash
  kEscaped,  // controls, DEL, backslash
  kCont80,   // continuation 80..8F
  kCont90,   // continuation 90..9F
  kContA0,   // continuation A0..BF
  kInvalid,  // C0, C1, F5..FF
  kLead2,    // C2..DF
  kLeadE0,   // E0: next must be A0..BF (else overlong)
  kLead3,    // E1..EC, EE, EF
  kLeadED,   // ED: next must be 80..9F (else a surrogate)
  kLeadF0,   // F0: next must be 90..BF (else overlong)
  kLead4,    // F1..F3
  kLeadF4,   // F4: next must be 80..8F (else above U+10FFFF)
};
constexpr uint32_t kClassCount = kLeadF4 + 1;
enum State : uint32_t {
  kAccept,
  kReject,
  kNeed1,
  kNeed2,
  kNeed3,
  kAfterE0,
  kAfterED,
  kAfterF0,
  kAfterF4,
  kStateCount
};

constexpr std::array<uint8_t, 256> kByteClass = [] {
  std::array<uint8_t, 256> t{};
  for (int b = 0; b < 256; ++b) {
    ByteClass c = kInvalid;
    if (b < 0x80)
      c = (b >= 0x20 && b < 0x7F && b != '\\') ? kPlain : kEscaped;
    else if (b < 0x90)
      c = kCont80;
    else if (b < 0xA0)
      c = kCont90;
    else if (b < 0xC0)
      c = kContA0;
    else if (b < 0xC2)
      c = kInvalid;
    else if (b < 0xE0)
      c = kLead2;
    else if (b == 0xE0)
      c = kLeadE0;
    else if (b == 0xED)
      c = kLeadED;
    else if (b < 0xF0)
      c = kLead3;
    else if (b == 0xF0)
      c = kLeadF0;
    else if (b < 0xF4)
      c = kLead4;
    else if (b == 0xF4)
      c = kLeadF4;
    t[b] = c;
  }
  return t;
}();

constexpr std::array<uint8_t, kStateCount* kClassCount> kNextState = [] {
  std::array<uint8_t, kStateCount * kClassCount> t{};
  auto row = [](State s) { return static_cast<uint8_t>(s * kClassCount); };
  for (auto& x : t) x = row(kReject);
  auto set = [&](State from, ByteClass c, State to) { t[from * kClassCount + c] = row(to); };
  set(kAccept, kPlain, kAccept);
  set(kAccept, kLead2, kNeed1);
  set(kAccept, kLeadE0, kAfterE0);
  set(kAccept, kLead3, kNeed2);
  set(kAccept, kLeadED, kAfterED);
  set(kAccept, kLeadF0, kAfterF0);
  set(kAccept, kLead4, kNeed3);
  set(kAccept, kLeadF4, kAfterF4);
  for (ByteClass c : {kCont80, kCont90, kContA0}) {
    set(kNeed1, c, kAccept);
    set(kNeed2, c, kNeed1);
    set(kNeed3, c, kNeed2);
  }
  set(kAfterE0, kContA0, kNeed1);
  set(kAfterED, kCont80, kNeed1);
  set(kAfterED, kCont90, kNeed1);
  set(kAfterF0, kCont90, kNeed2);
  set(kAfterF0, kContA0, kNeed2);
  set(kAfterF4, kCont80, kNeed2);
  return t;
}();

// True when s is valid UTF-8 with no byte that escape_line would escape.
bool needs_no_escape(std::string_view s) {
  uint32_t state = kAccept * kClassCount;
  for (const char ch : s) state = kNextState[state + kByteClass[static_cast<unsigned char>(ch)]];
  return state == kAccept * kClassCount;
}

template <bool kEscapeBackslash>
void append_line(std::string& out, std::string_view s) {
  if (needs_no_escape(s)) {
    out.append(s);
    return;
  }
  size_t i = 0;
  while (i < s.size()) {
    const size_t end = clean_run_end(s, i);
    out.append(s.data() + i, end - i);
    if (end == s.size()) break;
    switch (const auto c = static_cast<unsigned char>(s[end])) {
      case '\\':
        out.append(kEscapeBackslash ? "\\\\" : "\\");
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
      default:
        append_hex_escape(out, c);
        break;  // other controls, DEL, invalid UTF-8
    }
    i = end + 1;
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

void append_json_array(std::string& out, const ArrayRef& array);

// A JSON string. Control characters (and 0x7F) become \u00XX (\n \r \t keep their short forms).
// A byte that is not part of valid UTF-8 becomes \uDCXX, the lone low surrogate U+DC00 + byte
// (Python's "surrogateescape"): no valid UTF-8 text decodes to a surrogate, so the original
// bytes can be recovered exactly; Python's json module reads such strings.
void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t len = utf8_sequence_length(s, i);
      if (len != 0) {
        out.append(s.data() + i, len);
        i += len;
      } else {
        const char esc[6] = {'\\', 'u', 'd', 'c', kHex[c >> 4], kHex[c & 15]};
        out.append(esc, 6);
        ++i;
      }
      continue;
    }
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
      default:
        if (c < 0x20 || c == 0x7F) {
          const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
          out.append(esc, 6);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.push_back('"');
}

// JSON has no NaN or infinity: those become the strings "nan", "-nan", "inf", "-inf" (what the
// plain-text form prints), which keeps the value instead of collapsing it to null.
void append_json_value(std::string& out, const Value& v) {
  switch (v.type) {
    case ValueType::STRING:
      append_json_string(out, v.str);
      return;
    case ValueType::ARRAY:
      append_json_array(out, v.array);
      return;
    case ValueType::FLOAT32:
    case ValueType::FLOAT64: {
      const bool finite =
          v.type == ValueType::FLOAT32 ? std::isfinite(v.f32()) : std::isfinite(v.f64());
      if (!finite) out.push_back('"');
      append_scalar(out, v);
      if (!finite) out.push_back('"');
      return;
    }
    default:
      append_scalar(out, v);
      return;
  }
}

// An array element that is itself an array, on one line: [1,2,3], ["a","b"], [[1],[2]].
void append_json_array(std::string& out, const ArrayRef& array) {
  out.push_back('[');
  array.for_each([&](uint64_t index, const Value& element) {
    if (index != 0) out.push_back(',');
    append_json_value(out, element);
    return true;
  });
  out.push_back(']');
}

}  // namespace

size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const size_t remaining = s.size() - i;
  auto in = [&](size_t k, unsigned lo, unsigned hi) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    return b >= lo && b <= hi;
  };
  if (c < 0x80) return 1;
  if (c < 0xC2) return 0;  // a continuation byte, or C0/C1 (always overlong)
  if (c < 0xE0) return remaining >= 2 && in(1, 0x80, 0xBF) ? 2 : 0;
  if (c < 0xF0) {
    // E0 needs A0..BF (else overlong); ED needs 80..9F (else a surrogate).
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return remaining >= 3 && in(1, lo, hi) && in(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (c < 0xF5) {
    // F0 needs 90..BF (else overlong); F4 needs 80..8F (else above U+10FFFF).
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return remaining >= 4 && in(1, lo, hi) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

void append_escaped_line(std::string& out, std::string_view bytes) {
  append_line<true>(out, bytes);
}

void append_one_line(std::string& out, std::string_view bytes) {
  append_line<false>(out, bytes);
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
        append_json_array(out, element.array);
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
