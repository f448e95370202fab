// The writer's bytes checked against hand-counted layouts from the seed lesson (Examples 1-5),
// without the parser: the reader tests rely on the writer, so it is checked on its own first.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "gguf/writer.hpp"
#include "tests/support/model_builders.hpp"
#include "tests/support/test_support.hpp"

namespace {

using gguf::OwnedValue;
using gguf::Writer;

std::string hex(std::string_view bytes) {
  std::string out;
  char buf[4];
  for (unsigned char c : bytes) {
    std::snprintf(buf, sizeof buf, "%02x ", c);
    out += buf;
  }
  if (!out.empty()) out.pop_back();
  return out;
}

TEST(Writer, HeaderBytesMatchSeedExample2) {
  Writer w;
  w.override_tensor_count(291);
  w.override_kv_count(25);
  std::string bytes = w.to_bytes();
  EXPECT_EQ(hex(bytes.substr(0, 24)),
            "47 47 55 46 03 00 00 00 23 01 00 00 00 00 00 00 19 00 00 00 00 00 00 00");
}

TEST(Writer, StringsAreLengthPrefixedAsInSeedExample3) {
  Writer w;
  w.add("k", OwnedValue::string("h\xc3\xa9llo"));
  w.add("e", OwnedValue::string(""));
  std::string bytes = w.to_bytes();
  // header 24, key "k" 9, type 4, then the 14-byte string.
  EXPECT_EQ(hex(bytes.substr(37, 14)), "06 00 00 00 00 00 00 00 68 c3 a9 6c 6c 6f");
  // key "e" 9, type 4, then the empty string: 8 zero bytes.
  EXPECT_EQ(hex(bytes.substr(37 + 14 + 13, 8)), "00 00 00 00 00 00 00 00");
  EXPECT_EQ(w.infos_end(), 24u + 13 + 14 + 13 + 8);
}

TEST(Writer, TwelveScalarTypesTake104BytesAsInSeedExample4) {
  Writer w;
  w.add("a", OwnedValue::u8(200));
  w.add("b", OwnedValue::i8(-5));
  w.add("c", OwnedValue::u16(60000));
  w.add("d", OwnedValue::i16(-1234));
  w.add("e", OwnedValue::u32(4294967295u));
  w.add("f", OwnedValue::i32(-7));
  w.add("g", OwnedValue::f32(1e-5f));
  w.add("h", OwnedValue::boolean(true));
  w.add("i", OwnedValue::string("llama"));
  w.add("j", OwnedValue::u64(UINT64_MAX));
  w.add("k", OwnedValue::i64(-9000000000LL));
  w.add("l", OwnedValue::f64(0.1));
  // 24-byte header, 12 one-letter keys of 9 bytes, 104 bytes of typed values.
  EXPECT_EQ(w.infos_end(), 24u + 12 * 9 + 104);
  std::string bytes = w.to_bytes();
  // INT16 -1234 is 0xFB2E, little-endian 2e fb; it follows u8, i8, u16 entries.
  size_t i16_at = 24 + (9 + 4 + 1) * 2 + (9 + 4 + 2) + 9 + 4;
  EXPECT_EQ(hex(bytes.substr(i16_at, 2)), "2e fb");
}

TEST(Writer, TokenArraysTake116BytesAsInSeedExample5) {
  Writer w;
  w.add("a", OwnedValue::string_array({"<unk>", "<s>", "</s>", "\xe2\x96\x81the",
                                       "\xe2\x96\x81"
                                       "cat"}));
  w.add("b", OwnedValue::i32_array({2, 3, 3, 1, 1}));
  EXPECT_EQ(w.infos_end(), 24u + 2 * 9 + 116);
  std::string bytes = w.to_bytes();
  // Key "a" (9 bytes), then type 9, element type 8, count 5.
  EXPECT_EQ(hex(bytes.substr(33, 16)), "09 00 00 00 08 00 00 00 05 00 00 00 00 00 00 00");
}

TEST(Writer, LayoutMatchesSeedExample1) {
  Writer w;
  w.add("general.architecture", OwnedValue::string("llama"));
  w.add_tensor("output_norm.weight", {64}, gguf::type_id::F32, std::string(256, '\x01'));
  w.add_tensor("token_embd.weight", {64, 3}, gguf::type_id::Q8_0, std::string(204, '\x02'));
  EXPECT_EQ(w.infos_end(), 176u);
  EXPECT_EQ(w.data_offset(), 192u);
  EXPECT_EQ(w.tensor_offset(0), 0u);
  EXPECT_EQ(w.tensor_offset(1), 256u);
  std::string bytes = w.to_bytes();
  ASSERT_EQ(bytes.size(), 192u + 256 + 224);  // the last tensor is padded to 32 as well
  EXPECT_EQ(bytes.substr(176, 16), std::string(16, '\0'));
  EXPECT_EQ(bytes.substr(192, 256), std::string(256, '\x01'));
  EXPECT_EQ(bytes.substr(448, 204), std::string(204, '\x02'));
  EXPECT_EQ(bytes.substr(652), std::string(20, '\0'));
}

TEST(Writer, BigEndianSwapsNumbersButNotTensorBytes) {
  Writer w(Writer::Options{.big_endian = true});
  w.add("k", OwnedValue::u32(0x01020304));
  w.add_tensor("t", {2}, gguf::type_id::I16, std::string("\x11\x22\x33\x44", 4));
  std::string bytes = w.to_bytes();
  EXPECT_EQ(hex(bytes.substr(0, 24)),
            "47 47 55 46 00 00 00 03 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 01");
  // key length, key, type 4, value
  EXPECT_EQ(hex(bytes.substr(24, 17)), "00 00 00 00 00 00 00 01 6b 00 00 00 04 01 02 03 04");
  ASSERT_EQ(w.data_offset(), 96u);  // infos end at 41 + 9 + 4 + 8 + 4 + 8 = 74
  EXPECT_EQ(hex(bytes.substr(96, 4)), "11 22 33 44");
}

TEST(Writer, NestedArraysEncodeElementTypeAndCountPerLevel) {
  Writer w;
  w.add("n", OwnedValue::array_of_arrays({OwnedValue::scalar_array(gguf::ValueType::UINT8, {7}),
                                          OwnedValue::scalar_array(gguf::ValueType::UINT8, {})}));
  std::string bytes = w.to_bytes();
  EXPECT_EQ(hex(bytes.substr(37, 37)),
            "09 00 00 00 02 00 00 00 00 00 00 00 "     // outer: ARRAY elements, 2 of them
            "00 00 00 00 01 00 00 00 00 00 00 00 07 "  // [7] as UINT8
            "00 00 00 00 00 00 00 00 00 00 00 00");    // [] as UINT8
}

TEST(Writer, WriteFileEqualsToBytes) {
  test_support::TempDir dir;
  Writer w = test_support::small_model_writer();
  w.add_zero_tensor("zeros", {32, 4}, gguf::type_id::Q8_0);
  w.write_file((dir / "m.gguf").string());
  EXPECT_EQ(test_support::read_file(dir / "m.gguf"), w.to_bytes());
}

TEST(Writer, TensorByteSizeFollowsTheTypeTable) {
  EXPECT_EQ(gguf::tensor_byte_size(gguf::type_id::Q8_0, {64, 3}), 204u);
  EXPECT_EQ(gguf::tensor_byte_size(gguf::type_id::Q4_K, {4096, 14336}), 33'030'144u);
  EXPECT_THROW(gguf::tensor_byte_size(gguf::type_id::Q4_K, {704, 256}), std::invalid_argument);
  EXPECT_THROW(gguf::tensor_byte_size(4, {32}), std::invalid_argument);  // removed Q4_2
}

TEST(Writer, Llama3SizedVocabularyEncodesWellUnderASecond) {
  std::vector<std::string> tokens(128'256), merges(280'147);
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = "tok" + std::to_string(i);
  for (size_t i = 0; i < merges.size(); ++i) merges[i] = "m " + std::to_string(i);
  auto start = std::chrono::steady_clock::now();
  Writer w;
  w.add("tokenizer.ggml.tokens", OwnedValue::string_array(std::move(tokens)));
  w.add("tokenizer.ggml.merges", OwnedValue::string_array(std::move(merges)));
  std::string bytes = w.to_bytes();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(bytes.size(), 5'000'000u);
  EXPECT_LT(seconds, 1.0);
}

}  // namespace
