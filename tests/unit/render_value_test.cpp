// metadata/<key> texts: scalars, strings, escapes and arrays against hand-written expectations.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gguf/render/render.hpp"

namespace {

using gguf::Value;
using gguf::ValueType;

Value scalar(ValueType t, uint64_t bits) {
  Value v;
  v.type = t;
  v.bits = bits;
  return v;
}
Value signed_scalar(ValueType t, int64_t v) {
  return scalar(t, static_cast<uint64_t>(v));
}
Value f32(float f) {
  return scalar(ValueType::FLOAT32, std::bit_cast<uint32_t>(f));
}
Value f64(double d) {
  return scalar(ValueType::FLOAT64, std::bit_cast<uint64_t>(d));
}

// Little-endian encodings, as ArrayRef::bytes holds them.
void put(std::string& out, uint64_t v, int size) {
  for (int i = 0; i < size; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void put_string(std::string& out, const std::string& s) {
  put(out, s.size(), 8);
  out += s;
}

// An ARRAY value viewing `storage`, which the caller keeps alive.
Value array(ValueType element_type, uint64_t count, const std::string& storage) {
  Value v;
  v.type = ValueType::ARRAY;
  v.array.element_type = element_type;
  v.array.count = count;
  v.array.bytes = storage;
  return v;
}
std::string string_elements(const std::vector<std::string>& strings) {
  std::string bytes;
  for (const auto& s : strings) put_string(bytes, s);
  return bytes;
}
// One nested-array element: element type, count, then the elements' bytes.
std::string nested(ValueType element_type, uint64_t count, const std::string& elements) {
  std::string bytes;
  put(bytes, static_cast<uint32_t>(element_type), 4);
  put(bytes, count, 8);
  return bytes + elements;
}

TEST(RenderScalar, IntegersInDecimalWithTheirSignedness) {
  EXPECT_EQ(gguf::render_scalar(scalar(ValueType::UINT8, 255)), "255");
  EXPECT_EQ(gguf::render_scalar(signed_scalar(ValueType::INT8, -128)), "-128");
  EXPECT_EQ(gguf::render_scalar(scalar(ValueType::UINT16, 65535)), "65535");
  EXPECT_EQ(gguf::render_scalar(signed_scalar(ValueType::INT16, -32768)), "-32768");
  EXPECT_EQ(gguf::render_scalar(scalar(ValueType::UINT32, 4294967295u)), "4294967295");
  EXPECT_EQ(gguf::render_scalar(signed_scalar(ValueType::INT32, -2147483648LL)), "-2147483648");
  EXPECT_EQ(gguf::render_scalar(scalar(ValueType::UINT64, UINT64_MAX)), "18446744073709551615");
  EXPECT_EQ(gguf::render_scalar(signed_scalar(ValueType::INT64, INT64_MIN)),
            "-9223372036854775808");
  EXPECT_EQ(gguf::render_scalar(signed_scalar(ValueType::INT64, 42)), "42");
}

TEST(RenderScalar, BoolAsWords) {
  EXPECT_EQ(gguf::render_scalar(scalar(ValueType::BOOL, 1)), "true");
  EXPECT_EQ(gguf::render_scalar(scalar(ValueType::BOOL, 0)), "false");
}

TEST(RenderScalar, FloatsInTheShortestFormOfTheirWidth) {
  EXPECT_EQ(gguf::render_scalar(f32(1e-5f)), "1e-05");  // as a double it is 9.99999974737875e-06
  EXPECT_EQ(gguf::render_scalar(f32(0.1f)), "0.1");
  EXPECT_EQ(gguf::render_scalar(f32(500000.0f)), "500000");
  EXPECT_EQ(gguf::render_scalar(f32(-2.5f)), "-2.5");
  EXPECT_EQ(gguf::render_scalar(f32(std::numeric_limits<float>::quiet_NaN())), "nan");
  EXPECT_EQ(gguf::render_scalar(f32(-std::numeric_limits<float>::infinity())), "-inf");
  EXPECT_EQ(gguf::render_scalar(f64(1e300)), "1e+300");
  EXPECT_EQ(gguf::render_scalar(f64(0.1)), "0.1");
  EXPECT_EQ(gguf::render_scalar(f64(std::numeric_limits<double>::quiet_NaN())), "nan");
  EXPECT_EQ(gguf::render_scalar(f64(-std::numeric_limits<double>::infinity())), "-inf");
  EXPECT_EQ(gguf::format_float(1e-5f), "1e-05");
  EXPECT_EQ(gguf::format_double(4.5), "4.5");
}

TEST(RenderMetadataFile, ScalarsEndWithOneNewline) {
  EXPECT_EQ(gguf::render_metadata_file(scalar(ValueType::UINT32, 4096)), "4096\n");
  EXPECT_EQ(gguf::render_metadata_file(scalar(ValueType::BOOL, 1)), "true\n");
  EXPECT_EQ(gguf::render_metadata_file(f32(1e-5f)), "1e-05\n");
  EXPECT_EQ(gguf::render_metadata_file(scalar(ValueType::UINT64, UINT64_MAX)),
            "18446744073709551615\n");
}

TEST(RenderMetadataFile, StringIsItsExactBytes) {
  const char raw[] =
      "{% for m in messages %}\n\\\xff\x00"
      "end";
  const std::string bytes(raw, sizeof raw - 1);
  Value v;
  v.type = ValueType::STRING;
  v.str = bytes;
  EXPECT_EQ(gguf::render_metadata_file(v), bytes);
  v.str = "";
  EXPECT_EQ(gguf::render_metadata_file(v), "");
}

TEST(EscapeLine, ControlBytesAndBackslash) {
  EXPECT_EQ(gguf::escape_line("a\\b"), "a\\\\b");
  EXPECT_EQ(gguf::escape_line("\n\r\t"), "\\n\\r\\t");
  EXPECT_EQ(gguf::escape_line(std::string("\x00\x01\x1f", 3)), "\\x00\\x01\\x1f");
  EXPECT_EQ(gguf::escape_line("\x7f"), "\\x7f");
  EXPECT_EQ(gguf::escape_line(" ~plain text!"), " ~plain text!");
  EXPECT_EQ(gguf::escape_line(""), "");
}

TEST(EscapeLine, ValidUtf8IsKept) {
  EXPECT_EQ(gguf::escape_line("h\xc3\xa9llo"), "h\xc3\xa9llo");          // é
  EXPECT_EQ(gguf::escape_line("\xc2\x80"), "\xc2\x80");                  // U+0080
  EXPECT_EQ(gguf::escape_line("\xe4\xb8\xad"), "\xe4\xb8\xad");          // 中
  EXPECT_EQ(gguf::escape_line("\xef\xbf\xbf"), "\xef\xbf\xbf");          // U+FFFF
  EXPECT_EQ(gguf::escape_line("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");  // 😀
  EXPECT_EQ(gguf::escape_line("\xf4\x8f\xbf\xbf"), "\xf4\x8f\xbf\xbf");  // U+10FFFF
  EXPECT_EQ(gguf::escape_line("\xc4\xa0the"), "\xc4\xa0the");            // GPT-2's Ġthe
}

TEST(EscapeLine, InvalidUtf8BytesAreEscapedOneByOne) {
  EXPECT_EQ(gguf::escape_line("\xff"), "\\xff");
  EXPECT_EQ(gguf::escape_line("a\x80z"), "a\\x80z");                         // lone continuation
  EXPECT_EQ(gguf::escape_line("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(gguf::escape_line("\xc1\xbf"), "\\xc1\\xbf");                    // overlong
  EXPECT_EQ(gguf::escape_line("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong, 3 bytes
  EXPECT_EQ(gguf::escape_line("\xf0\x8f\xbf\xbf"), "\\xf0\\x8f\\xbf\\xbf");  // overlong, 4
  EXPECT_EQ(gguf::escape_line("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // surrogate U+D800
  EXPECT_EQ(gguf::escape_line("\xed\xbf\xbf"), "\\xed\\xbf\\xbf");           // surrogate U+DFFF
  EXPECT_EQ(gguf::escape_line("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // U+110000
  EXPECT_EQ(gguf::escape_line("\xf5\x80\x80\x80"), "\\xf5\\x80\\x80\\x80");
  EXPECT_EQ(gguf::escape_line("\xe4\xb8"), "\\xe4\\xb8");  // cut short at the end
  EXPECT_EQ(gguf::escape_line("\xe4"
                              "A\xc3\xa9"),
            "\\xe4"
            "A\xc3\xa9");  // cut short mid-text
}

// The definition of escape_line written the slow, obvious way: decode a code point from the lead
// byte's bit pattern, then reject overlong forms, surrogates and values above U+10FFFF.
std::string reference_escape(const std::string& s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = 0;
    uint32_t cp = 0, min = 0;
    if (c >= 0xC0 && c < 0xE0) len = 2, cp = c & 0x1F, min = 0x80;
    if (c >= 0xE0 && c < 0xF0) len = 3, cp = c & 0x0F, min = 0x800;
    if (c >= 0xF0 && c < 0xF8) len = 4, cp = c & 0x07, min = 0x10000;
    bool ok = len != 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      ok = (b & 0xC0) == 0x80;
      cp = (cp << 6) | (b & 0x3F);
    }
    if (ok && cp >= min && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF)) {
      out.append(s, i, len);
      i += len;
      continue;
    }
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c >= 0x7F)
      out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    else
      out += static_cast<char>(c);
    ++i;
  }
  return out;
}

TEST(EscapeLine, MatchesTheDefinitionOnEveryShortSequence) {
  std::string s;
  for (int b0 = 0; b0 < 256; ++b0) {
    for (int b1 = 0; b1 < 256; ++b1) {
      s.assign({static_cast<char>(b0), static_cast<char>(b1)});
      ASSERT_EQ(gguf::escape_line(s), reference_escape(s)) << b0 << " " << b1;
      if (b0 < 0xE0 || b0 > 0xF7) continue;
      for (int b2 : {0x20, 0x7F, 0x80, 0xBF, 0xC3}) {
        s.assign({static_cast<char>(b0), static_cast<char>(b1), static_cast<char>(b2)});
        ASSERT_EQ(gguf::escape_line(s), reference_escape(s)) << b0 << " " << b1 << " " << b2;
        if (b0 < 0xF0) continue;
        for (int b3 : {0x41, 0x80, 0xBF}) {
          s.assign({static_cast<char>(b0), static_cast<char>(b1), static_cast<char>(b2),
                    static_cast<char>(b3), 'z'});
          ASSERT_EQ(gguf::escape_line(s), reference_escape(s)) << b0 << " " << b1 << " " << b2;
        }
      }
    }
  }
}

TEST(EscapeLine, LongRunsAroundSpecialBytes) {
  // Longer than eight bytes on both sides, so whole-word scanning has to stop at the right byte.
  const std::string left = "abcdefghijklmnop", right = "qrstuvwxyz0123456789";
  EXPECT_EQ(gguf::escape_line(left + "\\" + right), left + "\\\\" + right);
  EXPECT_EQ(gguf::escape_line(left + "\n" + right), left + "\\n" + right);
  EXPECT_EQ(gguf::escape_line(left + "\x7f" + right), left + "\\x7f" + right);
  EXPECT_EQ(gguf::escape_line(left + "\xff" + right), left + "\\xff" + right);
  EXPECT_EQ(gguf::escape_line(left + "\xc3\xa9" + right), left + "\xc3\xa9" + right);
  EXPECT_EQ(gguf::escape_line(left + std::string(1, '\0') + right), left + "\\x00" + right);
}

TEST(RenderMetadataFile, EmptyArrayIsAnEmptyFile) {
  const std::string none;
  EXPECT_EQ(gguf::render_metadata_file(array(ValueType::STRING, 0, none)), "");
  EXPECT_EQ(gguf::render_metadata_file(array(ValueType::UINT32, 0, none)), "");
}

TEST(RenderMetadataFile, NumberArraysOneElementPerLine) {
  std::string u8;
  put(u8, 1, 1), put(u8, 2, 1), put(u8, 255, 1);
  EXPECT_EQ(gguf::render_metadata_file(array(ValueType::UINT8, 3, u8)), "1\n2\n255\n");

  std::string i32;
  put(i32, static_cast<uint32_t>(-1), 4), put(i32, 7, 4);
  EXPECT_EQ(gguf::render_metadata_file(array(ValueType::INT32, 2, i32)), "-1\n7\n");

  std::string f;
  put(f, std::bit_cast<uint32_t>(1e-5f), 4), put(f, std::bit_cast<uint32_t>(-1.5f), 4);
  EXPECT_EQ(gguf::render_metadata_file(array(ValueType::FLOAT32, 2, f)), "1e-05\n-1.5\n");

  std::string u64;
  put(u64, UINT64_MAX, 8);
  EXPECT_EQ(gguf::render_metadata_file(array(ValueType::UINT64, 1, u64)), "18446744073709551615\n");

  std::string b;
  put(b, 1, 1), put(b, 0, 1);
  EXPECT_EQ(gguf::render_metadata_file(array(ValueType::BOOL, 2, b)), "true\nfalse\n");
}

TEST(RenderMetadataFile, StringArrayElementsAreEscaped) {
  const std::string bytes = string_elements({"<s>", "a\nb", "", "\\", "\xff", "\xc4\xa0the"});
  EXPECT_EQ(gguf::render_metadata_file(array(ValueType::STRING, 6, bytes)),
            "<s>\na\\nb\n\n\\\\\n\\xff\n\xc4\xa0the\n");
}

TEST(RenderMetadataFile, NestedArraysAreJsonLines) {
  std::string first, second;
  put(first, 1, 4), put(first, static_cast<uint32_t>(-2), 4);
  put(second, 3, 4);
  const std::string bytes = nested(ValueType::INT32, 2, first) +
                            nested(ValueType::INT32, 1, second) + nested(ValueType::INT32, 0, "");
  EXPECT_EQ(gguf::render_metadata_file(array(ValueType::ARRAY, 3, bytes)), "[1,-2]\n[3]\n[]\n");
}

TEST(RenderMetadataFile, NestedStringsAreJsonStrings) {
  // Quote, backslash, newline, another control byte, DEL, an invalid byte (as the lone surrogate
  // \udcff, see render_value.cpp), and valid UTF-8 kept as is.
  const std::string bytes = nested(
      ValueType::STRING, 4, string_elements({"a\"b\\c", "x\ny\x01", "\x7f\xff", "h\xc3\xa9"}));
  EXPECT_EQ(gguf::render_metadata_file(array(ValueType::ARRAY, 1, bytes)),
            "[\"a\\\"b\\\\c\",\"x\\ny\\u0001\",\"\\u007f\\udcff\",\"h\xc3\xa9\"]\n");
}

TEST(RenderMetadataFile, NestedFloatsStayValidJson) {
  std::string floats;
  put(floats, std::bit_cast<uint32_t>(1.5f), 4);
  put(floats, std::bit_cast<uint32_t>(std::numeric_limits<float>::quiet_NaN()), 4);
  put(floats, std::bit_cast<uint32_t>(-std::numeric_limits<float>::infinity()), 4);
  put(floats, std::bit_cast<uint32_t>(1e-5f), 4);
  const std::string bytes = nested(ValueType::FLOAT32, 4, floats);
  EXPECT_EQ(gguf::render_metadata_file(array(ValueType::ARRAY, 1, bytes)),
            "[1.5,\"nan\",\"-inf\",1e-05]\n");
}

TEST(RenderMetadataFile, ArraysNestTwoDeep) {
  std::string one;
  put(one, 1, 1);
  const std::string inner = nested(ValueType::UINT8, 1, one) + nested(ValueType::UINT8, 0, "");
  const std::string bytes = nested(ValueType::ARRAY, 2, inner) + nested(ValueType::BOOL, 0, "");
  EXPECT_EQ(gguf::render_metadata_file(array(ValueType::ARRAY, 2, bytes)), "[[1],[]]\n[]\n");
}

TEST(RenderMetadataFile, BigEndianArrays) {
  std::string be("\x01\x02\xff\xfe", 4);
  Value v = array(ValueType::INT16, 2, be);
  v.array.big_endian = true;
  EXPECT_EQ(gguf::render_metadata_file(v), "258\n-2\n");
}

TEST(RenderMetadataFile, LargeVocabularyRendersQuickly) {
  // 150,000 tokens like a real vocabulary: mostly ASCII, some UTF-8, a few that need escapes.
  std::string bytes;
  std::string expected;
  for (int i = 0; i < 150000; ++i) {
    std::string token = "\xc4\xa0token" + std::to_string(i);
    std::string line = token;
    if (i % 1000 == 0) token += "\n", line += "\\n";
    put_string(bytes, token);
    expected += line + "\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const std::string text = gguf::render_metadata_file(array(ValueType::STRING, 150000, bytes));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(text, expected);
  // A few ms in a release build; the bound only catches accidental quadratic behaviour.
  EXPECT_LT(elapsed, std::chrono::seconds(1));
}

}  // namespace
