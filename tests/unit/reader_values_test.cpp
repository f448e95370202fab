// Metadata values written with the writer and read back by the parser: every value type, every
// array kind, odd strings and floats, in both byte orders and both supported versions.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "gguf/parser.hpp"
#include "gguf/writer.hpp"
#include "tests/support/model_builders.hpp"

namespace {

using gguf::OwnedValue;
using gguf::ValueType;
using gguf::Writer;
using test_support::parse_bytes;
using test_support::parse_error;

const char kOddBytes[] = "nul\0newline\n\xff\xfe invalid utf-8 \xc3";
const std::string kOddString(kOddBytes, sizeof kOddBytes - 1);

// One pair of every kind, in a known order.
Writer everything_writer(Writer::Options options) {
  Writer w(options);
  w.add("u8", OwnedValue::u8(200));
  w.add("i8", OwnedValue::i8(-5));
  w.add("u16", OwnedValue::u16(60000));
  w.add("i16", OwnedValue::i16(-1234));
  w.add("u32", OwnedValue::u32(4294967295u));
  w.add("i32", OwnedValue::i32(-7));
  w.add("f32", OwnedValue::f32(1e-5f));
  w.add("bool", OwnedValue::boolean(true));
  w.add("str", OwnedValue::string("llama"));
  w.add("u64", OwnedValue::u64(18446744073709551615ULL));
  w.add("i64", OwnedValue::i64(std::numeric_limits<int64_t>::min()));
  w.add("f64", OwnedValue::f64(0.1));
  w.add("f32.nan", OwnedValue::scalar(ValueType::FLOAT32, 0x7FC00001));  // NaN with a payload
  w.add("f32.inf", OwnedValue::f32(std::numeric_limits<float>::infinity()));
  w.add("f64.neg_inf", OwnedValue::f64(-std::numeric_limits<double>::infinity()));
  w.add("f64.neg_zero", OwnedValue::f64(-0.0));
  w.add("bool.two", OwnedValue::bool_byte(2));
  w.add("bool.false", OwnedValue::boolean(false));
  w.add("str.odd", OwnedValue::string(kOddString));
  w.add("str.empty", OwnedValue::string(""));
  w.add(std::string("key\0with nul", 12), OwnedValue::u8(1));
  w.add("arr.u16", OwnedValue::scalar_array(ValueType::UINT16, {0, 1, 65535}));
  w.add("arr.i64", OwnedValue::scalar_array(ValueType::INT64, {static_cast<uint64_t>(-1), 5}));
  w.add("arr.f64", OwnedValue::scalar_array(ValueType::FLOAT64,
                                            {std::bit_cast<uint64_t>(2.5), 0x7FF0000000000000}));
  w.add("arr.bool", OwnedValue::scalar_array(ValueType::BOOL, {1, 0, 1}));
  w.add("arr.str", OwnedValue::string_array({"a", "", kOddString}));
  w.add("arr.empty.str", OwnedValue::string_array({}));
  w.add("arr.empty.u32", OwnedValue::u32_array({}));
  w.add("arr.nested", OwnedValue::array_of_arrays(
                          {OwnedValue::u32_array({1, 2}), OwnedValue::u32_array({3}),
                           OwnedValue::u32_array({}), OwnedValue::string_array({"x", "yz"})}));
  w.add("arr.empty.nested", OwnedValue::array_of_arrays({}));
  w.add_tensor("t.weight", {4, 2}, gguf::type_id::F32, std::string(32, '\x07'));
  return w;
}

const gguf::Value& value_of(const gguf::Model& m, std::string_view key) {
  const gguf::MetadataEntry* e = m.find(key);
  if (!e) throw std::runtime_error("missing key " + std::string(key));
  return e->value;
}

std::vector<gguf::Value> elements(const gguf::Value& v) {
  std::vector<gguf::Value> out;
  v.array.for_each([&](uint64_t, const gguf::Value& e) {
    out.push_back(e);
    return true;
  });
  return out;
}

void expect_everything(const gguf::Model& m) {
  ASSERT_EQ(m.metadata.size(), 30u);
  ASSERT_EQ(m.n_kv, 30u);
  EXPECT_EQ(m.metadata[0].key, "u8");
  EXPECT_EQ(m.metadata[29].key, "arr.empty.nested");

  auto u8 = value_of(m, "u8");
  EXPECT_EQ(u8.type, ValueType::UINT8);
  EXPECT_EQ(u8.bits, 200u);
  EXPECT_EQ(value_of(m, "i8").i64(), -5);
  EXPECT_EQ(value_of(m, "i8").type, ValueType::INT8);
  EXPECT_EQ(value_of(m, "u16").bits, 60000u);
  EXPECT_EQ(value_of(m, "i16").i64(), -1234);
  EXPECT_EQ(value_of(m, "u32").bits, 4294967295u);
  EXPECT_EQ(value_of(m, "u32").as_unsigned(), 4294967295u);
  EXPECT_EQ(value_of(m, "i32").i64(), -7);
  EXPECT_EQ(value_of(m, "i32").as_unsigned(), std::nullopt);
  EXPECT_EQ(value_of(m, "f32").f32(), 1e-5f);
  EXPECT_EQ(value_of(m, "bool").type, ValueType::BOOL);
  EXPECT_EQ(value_of(m, "bool").bits, 1u);
  EXPECT_EQ(value_of(m, "str").str, "llama");
  EXPECT_EQ(value_of(m, "u64").bits, 18446744073709551615ULL);
  EXPECT_EQ(value_of(m, "u64").as_unsigned(), 18446744073709551615ULL);
  EXPECT_EQ(value_of(m, "i64").i64(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(value_of(m, "f64").f64(), 0.1);
  EXPECT_EQ(value_of(m, "f64").as_double(), 0.1);

  EXPECT_TRUE(std::isnan(value_of(m, "f32.nan").f32()));
  EXPECT_EQ(value_of(m, "f32.nan").bits, 0x7FC00001u);  // the payload survives
  EXPECT_EQ(value_of(m, "f32.inf").f32(), std::numeric_limits<float>::infinity());
  EXPECT_EQ(value_of(m, "f64.neg_inf").f64(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(value_of(m, "f64.neg_zero").bits, 0x8000000000000000ULL);
  EXPECT_EQ(value_of(m, "bool.two").bits, 1u);  // any non-zero byte is true
  EXPECT_EQ(value_of(m, "bool.false").bits, 0u);
  EXPECT_EQ(value_of(m, "str.odd").str, kOddString);
  EXPECT_EQ(value_of(m, "str.empty").str, "");
  EXPECT_EQ(value_of(m, "str.empty").type, ValueType::STRING);
  EXPECT_EQ(m.metadata[20].key, std::string_view("key\0with nul", 12));

  auto u16 = value_of(m, "arr.u16");
  EXPECT_EQ(u16.type, ValueType::ARRAY);
  EXPECT_EQ(u16.array.element_type, ValueType::UINT16);
  ASSERT_EQ(u16.array.count, 3u);
  EXPECT_EQ(u16.array.scalar_at(2)->bits, 65535u);
  EXPECT_EQ(u16.array.scalar_at(3), std::nullopt);
  auto i64 = elements(value_of(m, "arr.i64"));
  ASSERT_EQ(i64.size(), 2u);
  EXPECT_EQ(i64[0].i64(), -1);
  EXPECT_EQ(i64[1].i64(), 5);
  auto f64 = elements(value_of(m, "arr.f64"));
  ASSERT_EQ(f64.size(), 2u);
  EXPECT_EQ(f64[0].f64(), 2.5);
  EXPECT_EQ(f64[1].f64(), std::numeric_limits<double>::infinity());
  auto bools = elements(value_of(m, "arr.bool"));
  ASSERT_EQ(bools.size(), 3u);
  EXPECT_EQ(bools[0].bits, 1u);
  EXPECT_EQ(bools[1].bits, 0u);
  auto strs = elements(value_of(m, "arr.str"));
  ASSERT_EQ(strs.size(), 3u);
  EXPECT_EQ(strs[0].str, "a");
  EXPECT_EQ(strs[1].str, "");
  EXPECT_EQ(strs[2].str, kOddString);
  EXPECT_EQ(value_of(m, "arr.empty.str").array.count, 0u);
  EXPECT_EQ(value_of(m, "arr.empty.str").array.element_type, ValueType::STRING);
  EXPECT_EQ(elements(value_of(m, "arr.empty.u32")).size(), 0u);
  EXPECT_EQ(value_of(m, "arr.empty.u32").array.element_type, ValueType::UINT32);

  auto nested = elements(value_of(m, "arr.nested"));
  EXPECT_EQ(value_of(m, "arr.nested").array.element_type, ValueType::ARRAY);
  ASSERT_EQ(nested.size(), 4u);
  EXPECT_EQ(nested[0].type, ValueType::ARRAY);
  ASSERT_EQ(nested[0].array.count, 2u);
  EXPECT_EQ(nested[0].array.scalar_at(1)->bits, 2u);
  EXPECT_EQ(nested[1].array.scalar_at(0)->bits, 3u);
  EXPECT_EQ(nested[2].array.count, 0u);
  auto inner = elements(nested[3]);
  ASSERT_EQ(inner.size(), 2u);
  EXPECT_EQ(inner[1].str, "yz");
  EXPECT_EQ(value_of(m, "arr.empty.nested").array.count, 0u);

  ASSERT_EQ(m.tensors.size(), 1u);
  EXPECT_EQ(m.tensors[0].name, "t.weight");
  EXPECT_EQ(m.tensors[0].n_dims, 2u);
  EXPECT_EQ(m.tensors[0].ne[0], 4u);
  EXPECT_EQ(m.tensors[0].ne[1], 2u);
  EXPECT_EQ(m.tensors[0].bytes, 32u);
  EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
}

TEST(ReaderValues, EveryTypeRoundTripsLittleEndianV3) {
  auto m = parse_bytes(everything_writer({}).to_bytes());
  EXPECT_EQ(m->version, 3u);
  EXPECT_FALSE(m->big_endian);
  expect_everything(*m);
}

TEST(ReaderValues, BigEndianFileParsesToTheSameValues) {
  auto m = parse_bytes(everything_writer({.big_endian = true}).to_bytes());
  EXPECT_EQ(m->version, 3u);
  EXPECT_TRUE(m->big_endian);
  expect_everything(*m);
}

TEST(ReaderValues, VersionTwoFileParsesToTheSameValues) {
  auto m = parse_bytes(everything_writer({.version = 2}).to_bytes());
  EXPECT_EQ(m->version, 2u);
  expect_everything(*m);
}

TEST(ReaderValues, ForEachStopsWhenTheCallbackReturnsFalse) {
  Writer w;
  w.add("a", OwnedValue::u32_array({10, 20, 30, 40}));
  auto m = parse_bytes(w.to_bytes());
  std::vector<uint64_t> seen;
  m->find("a")->value.array.for_each([&](uint64_t i, const gguf::Value& v) {
    seen.push_back(i * 1000 + v.bits);
    return i < 1;
  });
  EXPECT_EQ(seen, (std::vector<uint64_t>{10, 1020}));
}

// An array nested `levels` deep, the innermost holding one UINT8.
OwnedValue nested(int levels) {
  OwnedValue v = OwnedValue::scalar_array(ValueType::UINT8, {42});
  for (int i = 1; i < levels; ++i) v = OwnedValue::array_of_arrays({v});
  return v;
}

TEST(ReaderValues, ArraysNestedEightDeepAreRead) {
  Writer w;
  w.add("deep", nested(8));
  auto m = parse_bytes(w.to_bytes());
  gguf::Value v = m->find("deep")->value;
  for (int level = 1; level < 8; ++level) {
    ASSERT_EQ(v.array.element_type, ValueType::ARRAY) << level;
    v = elements(v).at(0);
  }
  EXPECT_EQ(v.array.element_type, ValueType::UINT8);
  EXPECT_EQ(v.array.scalar_at(0)->bits, 42u);
}

TEST(ReaderValues, ArraysNestedNineDeepAreRefused) {
  Writer w;
  w.add("deep", nested(9));
  auto e = parse_error(w.to_bytes());
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), gguf::FormatError::Kind::malformed);
  EXPECT_NE(e->message().find("deep"), std::string::npos) << e->what();
}

TEST(ReaderValues, MetadataOffsetsPointAtEachKey) {
  Writer w;
  w.add("a", OwnedValue::u32(1));        // 24 .. 24+9+4+4 = 41
  w.add("bb", OwnedValue::string("x"));  // 41 .. 41+10+4+9 = 64
  w.add("c", OwnedValue::u8(1));
  auto m = parse_bytes(w.to_bytes());
  ASSERT_EQ(m->metadata.size(), 3u);
  EXPECT_EQ(m->metadata[0].file_offset, 24u);
  EXPECT_EQ(m->metadata[1].file_offset, 41u);
  EXPECT_EQ(m->metadata[2].file_offset, 64u);
}

}  // namespace
