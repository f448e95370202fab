// Writes to metadata/<key> (gguf/edit/value_text.hpp): every value type read back from its
// rendered text must give exactly the bytes the writer (and ggml, in alltypes.gguf) encoded;
// invalid text of every type is refused with a reason.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gguf/edit/value_text.hpp"
#include "gguf/parser.hpp"
#include "gguf/render/render.hpp"
#include "gguf/writer.hpp"
#include "tests/support/test_support.hpp"

namespace {

using gguf::OwnedValue;
using gguf::TypeSpec;
using gguf::ValueType;

// The bytes of an entry's value as stored in its file (after the key and the type id).
std::string stored_value_bytes(const gguf::Model& m, const gguf::MetadataEntry& e,
                               size_t next_offset) {
  const size_t start = e.file_offset + 8 + e.key.size() + 4;
  return std::string(reinterpret_cast<const char*>(m.header_bytes) + start, next_offset - start);
}

// For each entry: render it, read the text back, and compare with the encoding in the file.
void expect_every_entry_round_trips(const gguf::Model& m) {
  ASSERT_FALSE(m.metadata.empty());
  for (size_t k = 0; k < m.metadata.size(); ++k) {
    const gguf::MetadataEntry& e = m.metadata[k];
    const size_t next = k + 1 < m.metadata.size() ? m.metadata[k + 1].file_offset
                        : m.tensors.empty()       ? m.data_offset
                                                  : m.tensors[0].info_offset;
    const std::string text = gguf::render_metadata_file(e.value);
    const TypeSpec spec = gguf::type_spec_of(e.value);
    SCOPED_TRACE(std::string(e.key) + " " + gguf::type_spec_name(spec));
    std::string encoded;
    ASSERT_NO_THROW(encoded = gguf::encode_value_text(spec, text, m.big_endian));
    if (m.tensors.empty() && k + 1 == m.metadata.size()) {
      // The last entry runs up to the padding: compare only its own length.
      EXPECT_EQ(encoded, stored_value_bytes(m, e, next).substr(0, encoded.size()));
    } else {
      EXPECT_EQ(encoded, stored_value_bytes(m, e, next));
    }
  }
}

gguf::Writer every_type_writer(bool big_endian) {
  gguf::Writer::Options options;
  options.big_endian = big_endian;
  gguf::Writer w(options);
  const float nan32 = std::numeric_limits<float>::quiet_NaN();
  const double inf64 = std::numeric_limits<double>::infinity();
  w.add("u8.max", OwnedValue::u8(255));
  w.add("i8.min", OwnedValue::i8(-128));
  w.add("u16", OwnedValue::u16(65535));
  w.add("i16", OwnedValue::i16(-32768));
  w.add("u32", OwnedValue::u32(4294967295u));
  w.add("i32", OwnedValue::i32(std::numeric_limits<int32_t>::min()));
  w.add("u64", OwnedValue::u64(std::numeric_limits<uint64_t>::max()));
  w.add("i64", OwnedValue::i64(std::numeric_limits<int64_t>::min()));
  w.add("f32.tenth", OwnedValue::f32(0.1f));
  w.add("f32.eps", OwnedValue::f32(1e-5f));
  w.add("f32.denormal", OwnedValue::f32(std::numeric_limits<float>::denorm_min()));
  w.add("f32.max", OwnedValue::f32(std::numeric_limits<float>::max()));
  w.add("f32.nan", OwnedValue::f32(nan32));
  w.add("f32.neg_nan", OwnedValue::f32(-nan32));
  w.add("f32.neg_zero", OwnedValue::f32(-0.0f));
  w.add("f64.inf", OwnedValue::f64(inf64));
  w.add("f64.neg_inf", OwnedValue::f64(-inf64));
  w.add("f64.third", OwnedValue::f64(1.0 / 3.0));
  w.add("f64.big", OwnedValue::f64(1e300));
  w.add("bool.true", OwnedValue::boolean(true));
  w.add("bool.false", OwnedValue::boolean(false));
  w.add("str.empty", OwnedValue::string(""));
  w.add("str.template",
        OwnedValue::string("{% for m in messages %}\n\t{{ m['content'] }}\\n\r\n{% endfor %}\n"));
  w.add("str.binary", OwnedValue::string(std::string("a\0b\xff\xc3(\x7f", 8)));
  w.add("str.utf8", OwnedValue::string("Привет, 世界 🎉"));
  w.add("arr.empty", OwnedValue::u32_array({}));
  w.add("arr.i32", OwnedValue::i32_array({-1, 0, 2147483647, -2147483647 - 1}));
  w.add("arr.f32", OwnedValue::f32_array({0.5f, -0.0f, nan32, -1e-38f, 3.4e38f}));
  w.add("arr.u8", OwnedValue::scalar_array(ValueType::UINT8, {0, 1, 255}));
  w.add("arr.i8", OwnedValue::scalar_array(ValueType::INT8, {0x80, 0x7F, 0xFF}));
  w.add("arr.u16", OwnedValue::scalar_array(ValueType::UINT16, {0, 65535}));
  w.add("arr.i16", OwnedValue::scalar_array(ValueType::INT16, {0x8000, 0x7FFF}));
  w.add("arr.u64", OwnedValue::scalar_array(ValueType::UINT64, {0, ~uint64_t{0}}));
  w.add("arr.i64", OwnedValue::scalar_array(ValueType::INT64, {uint64_t{1} << 63, 5}));
  w.add("arr.f64",
        OwnedValue::scalar_array(ValueType::FLOAT64, {std::bit_cast<uint64_t>(-inf64),
                                                      std::bit_cast<uint64_t>(2.5e-308)}));
  w.add("arr.bool", OwnedValue::scalar_array(ValueType::BOOL, {1, 0, 1}));
  w.add("arr.str", OwnedValue::string_array({"", "plain", "new\nline", "tab\there", "back\\slash",
                                             std::string("nul\0x", 5), "bad\xff utf8", "\x7f",
                                             "Ġhello", "\\x41 not an escape"}));
  w.add("arr.str.one_empty", OwnedValue::string_array({""}));
  w.add("arr.nested.i32",
        OwnedValue::array_of_arrays({OwnedValue::i32_array({1, -2}), OwnedValue::i32_array({}),
                                     OwnedValue::i32_array({3})}));
  w.add("arr.nested.str",
        OwnedValue::array_of_arrays({OwnedValue::string_array({"a\"b", "c\\d\n", "\xff", "é"}),
                                     OwnedValue::string_array({"🎉", std::string("\0", 1)})}));
  w.add("arr.nested.f32",
        OwnedValue::array_of_arrays({OwnedValue::f32_array({nan32, 1.5f, -INFINITY})}));
  w.add("arr.nested.deep", OwnedValue::array_of_arrays({OwnedValue::array_of_arrays(
                               {OwnedValue::scalar_array(ValueType::BOOL, {1, 0}),
                                OwnedValue::scalar_array(ValueType::BOOL, {})})}));
  return w;
}

TEST(EditValueText, EveryTypeRoundTripsAgainstTheWritersEncoding) {
  for (const bool big_endian : {false, true}) {
    SCOPED_TRACE(big_endian ? "big-endian" : "little-endian");
    const gguf::Writer w = every_type_writer(big_endian);
    const auto model = gguf::parse(gguf::memory_source(w.to_bytes(), "every-type.gguf"));
    ASSERT_TRUE(model->warnings.empty());
    expect_every_entry_round_trips(*model);
  }
}

TEST(EditValueText, EveryEntryOfGgmlsAllTypesFileRoundTrips) {
  const auto model = gguf::parse_file(test_support::data_file("alltypes/alltypes.gguf").string());
  expect_every_entry_round_trips(*model);
}

std::string le(uint64_t v, int size) {
  std::string out;
  for (int i = 0; i < size; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  return out;
}

TEST(EditValueText, WrittenFormsBesidesTheRenderedOne) {
  const auto enc = [](const char* type, std::string_view text) {
    return gguf::encode_value_text(gguf::parse_type_spec(type), text, false);
  };
  EXPECT_EQ(enc("UINT32", "8192"), le(8192, 4));    // printf without the newline
  EXPECT_EQ(enc("UINT32", "8192\n"), le(8192, 4));  // echo
  EXPECT_EQ(enc("INT8", "-007\n"), le(0xF9, 1));    // leading zeros are still decimal
  EXPECT_EQ(enc("FLOAT32", "1e-5"), le(std::bit_cast<uint32_t>(1e-5f), 4));
  EXPECT_EQ(enc("FLOAT64", "0.10000\n"), le(std::bit_cast<uint64_t>(0.1), 8));
  EXPECT_EQ(enc("FLOAT32", "inf"), le(0x7F800000, 4));
  EXPECT_EQ(enc("STRING", "x\n"), le(2, 8) + "x\n");  // exact bytes: the newline stays
  EXPECT_EQ(enc("ARRAY[INT16]", "1\n-1"), le(3, 4) + le(2, 8) + le(1, 2) + le(0xFFFF, 2));
  EXPECT_EQ(enc("ARRAY[STRING]", ""), le(8, 4) + le(0, 8));
  EXPECT_EQ(enc("ARRAY[STRING]", "\n\n"), le(8, 4) + le(2, 8) + le(0, 8) + le(0, 8));
}

TEST(EditValueText, TypeNames) {
  EXPECT_EQ(gguf::parse_type_spec("uint32").chain, std::vector{ValueType::UINT32});
  EXPECT_EQ(gguf::parse_type_spec("ARRAY[STRING]").chain,
            (std::vector{ValueType::ARRAY, ValueType::STRING}));
  EXPECT_EQ(gguf::parse_type_spec("ARRAY[ARRAY[INT32]]").chain,
            (std::vector{ValueType::ARRAY, ValueType::ARRAY, ValueType::INT32}));
  EXPECT_EQ(gguf::type_spec_name(gguf::parse_type_spec("array[array[float64]]")),
            "ARRAY[ARRAY[FLOAT64]]");
  for (const char* bad :
       {"", "ARRAY", "UINT33", "ARRAY[]", "ARRAY[INT32", "STRING[INT8]", "ARRAY[INT32]]",
        "ARRAY[ARRAY[ARRAY[ARRAY[ARRAY[ARRAY[ARRAY[ARRAY[ARRAY["
        "INT8]]]]]]]]]"}) {
    EXPECT_THROW(gguf::parse_type_spec(bad), gguf::ValueTextError) << bad;
  }
}

struct Invalid {
  const char* type;
  std::string text;
  const char* reason;  // a part of the message
};

TEST(EditValueText, InvalidTextOfEveryTypeIsRefusedWithAReason) {
  const std::vector<Invalid> cases = {
      {"UINT8", "256", "out of range for UINT8"},
      {"UINT8", "-1", "out of range for UINT8"},
      {"INT8", "128", "out of range for INT8"},
      {"INT8", "-129", "out of range for INT8"},
      {"UINT16", "65536", "out of range"},
      {"INT16", "-32769", "out of range"},
      {"UINT32", "4294967296\n", "out of range for UINT32"},
      {"INT32", "2147483648", "out of range"},
      {"UINT64", "18446744073709551616", "out of range"},
      {"INT64", "9223372036854775808", "out of range"},
      {"UINT32", "", "got nothing"},
      {"UINT32", "+5", "not a decimal"},
      {"UINT32", " 5", "not a decimal"},
      {"UINT32", "5 ", "not a decimal"},
      {"UINT32", "0x10", "not a decimal"},
      {"UINT32", "5\n\n", "one line"},
      {"INT32", "1.5", "not a decimal"},
      {"BOOL", "True", "not a BOOL"},
      {"BOOL", "1", "not a BOOL"},
      {"FLOAT32", "1e39", "out of range for FLOAT32"},
      {"FLOAT64", "1e999", "out of range"},
      {"FLOAT32", "abc", "not a FLOAT32"},
      {"FLOAT32", "1.5f", "not a FLOAT32"},
      {"FLOAT64", "0x1p3", "not a FLOAT64"},
      {"FLOAT32", "", "not a FLOAT32"},
      {"ARRAY[INT32]", "1\n\n2\n", "line 2: expected a INT32 integer, got nothing"},
      {"ARRAY[UINT8]", "1\n300\n", "line 2: '300' is out of range for UINT8"},
      {"ARRAY[FLOAT32]", "0.5\nx", "line 2: 'x' is not a FLOAT32"},
      {"ARRAY[BOOL]", "true\nyes", "line 2"},
      {"ARRAY[STRING]", "ok\nbad \\q escape", "line 2: byte 4: unknown escape"},
      {"ARRAY[STRING]", "ends with \\", "lone '\\'"},
      {"ARRAY[STRING]", "\\x4", "two hex digits"},
      {"ARRAY[STRING]", "\\xZZ", "two hex digits"},
      {"ARRAY[ARRAY[INT32]]", "[1,2]\n[1,", "line 2"},
      {"ARRAY[ARRAY[INT32]]", "1,2", "expected '['"},
      {"ARRAY[ARRAY[INT32]]", "[1 2]", "expected ',' or ']'"},
      {"ARRAY[ARRAY[INT32]]", "[1]x", "unexpected text"},
      {"ARRAY[ARRAY[INT32]]", "[\"1\"]", "got a string"},
      {"ARRAY[ARRAY[INT32]]", "[3000000000]", "out of range for INT32"},
      {"ARRAY[ARRAY[STRING]]", "[\"a]", "unterminated string"},
      {"ARRAY[ARRAY[STRING]]", "[\"\\q\"]", "unknown escape"},
      {"ARRAY[ARRAY[STRING]]", "[\"\\ud800\"]", "surrogate"},
      {"ARRAY[ARRAY[STRING]]", "[\"\\udc00\"]", "surrogate"},
      {"ARRAY[ARRAY[STRING]]", "[\"\\u12\"]", "four hex digits"},
      {"ARRAY[ARRAY[STRING]]", "[a]", "expected a JSON string"},
      {"ARRAY[ARRAY]", "[1]", "element type of this nested array is unknown"},
  };
  for (const Invalid& c : cases) {
    SCOPED_TRACE(std::string(c.type) + " <- " + c.text);
    try {
      gguf::encode_value_text(gguf::parse_type_spec(c.type), c.text, false);
      ADD_FAILURE() << "accepted";
    } catch (const gguf::ValueTextError& e) {
      EXPECT_NE(std::string(e.what()).find(c.reason), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
    }
  }
}

}  // namespace
