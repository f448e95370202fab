// fp16 and bf16 against ggml's conversion of all 65,536 bit patterns, and the plain types
// (integers, F64, big-endian input) against values known by construction.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "gguf/decode/decode.hpp"
#include "gguf/types.hpp"
#include "tests/support/test_support.hpp"

namespace {

namespace t = gguf::type_id;

std::vector<uint32_t> reference_bits(const char* file) {
  const std::string raw = test_support::read_file(test_support::data_file(file));
  std::vector<uint32_t> bits(raw.size() / 4);
  for (size_t i = 0; i < bits.size(); ++i) {
    const auto* p = reinterpret_cast<const uint8_t*>(raw.data()) + 4 * i;
    bits[i] = p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24;
  }
  return bits;
}

// Every 16-bit pattern, little-endian, as a tensor of 65,536 elements.
std::vector<uint8_t> all_halves() {
  std::vector<uint8_t> bytes(2 * 65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    bytes[2 * i] = static_cast<uint8_t>(i);
    bytes[2 * i + 1] = static_cast<uint8_t>(i >> 8);
  }
  return bytes;
}

// Bits must match exactly, NaN payloads included (ggml quiets them: 0x7C01 -> 0x7FC02000).
TEST(DecodeFloat, Fp16AllPatternsMatchGgml) {
  const auto want = reference_bits("vectors/fp16_to_fp32_all65536.f32");
  ASSERT_EQ(want.size(), 65536u);
  const auto halves = all_halves();
  std::vector<float> array(65536);
  gguf::decode_blocks(t::F16, halves.data(), 65536, array.data());  // the F16C path if present
  size_t bad_scalar = 0, bad_array = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    bad_scalar += std::bit_cast<uint32_t>(gguf::fp16_to_fp32(static_cast<uint16_t>(h))) != want[h];
    bad_array += std::bit_cast<uint32_t>(array[h]) != want[h];
  }
  EXPECT_EQ(bad_scalar, 0u);
  EXPECT_EQ(bad_array, 0u);
  EXPECT_EQ(std::bit_cast<uint32_t>(gguf::fp16_to_fp32(0x7C01)), 0x7FC02000u);
  EXPECT_EQ(gguf::fp16_to_fp32(0x0001), 0x1p-24f);
}

TEST(DecodeFloat, Bf16AllPatternsMatchGgml) {
  const auto want = reference_bits("vectors/bf16_to_fp32_all65536.f32");
  ASSERT_EQ(want.size(), 65536u);
  const auto halves = all_halves();
  std::vector<float> array(65536);
  gguf::decode_blocks(t::BF16, halves.data(), 65536, array.data());
  size_t bad_scalar = 0, bad_array = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    bad_scalar += std::bit_cast<uint32_t>(gguf::bf16_to_fp32(static_cast<uint16_t>(h))) != want[h];
    bad_array += std::bit_cast<uint32_t>(array[h]) != want[h];
  }
  EXPECT_EQ(bad_scalar, 0u);
  EXPECT_EQ(bad_array, 0u);
}

// Little-endian bytes of each value.
template <class T>
std::vector<uint8_t> le_bytes(const std::vector<T>& values) {
  std::vector<uint8_t> out;
  for (T v : values) {
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof(T));
    for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<uint8_t>(u >> (8 * i)));
  }
  return out;
}

TEST(DecodeFloat, IntegersGoToTheNearestFloat) {
  std::vector<float> y(4);
  gguf::decode_blocks(t::I8, le_bytes<int8_t>({-128, -1, 0, 127}).data(), 4, y.data());
  EXPECT_EQ(y, (std::vector<float>{-128, -1, 0, 127}));
  gguf::decode_blocks(t::I16, le_bytes<int16_t>({-32768, -2, 3, 32767}).data(), 4, y.data());
  EXPECT_EQ(y, (std::vector<float>{-32768, -2, 3, 32767}));
  // 16777217 = 2^24 + 1 is halfway between floats: ties to even gives 2^24.
  gguf::decode_blocks(t::I32, le_bytes<int32_t>({16777217, 16777219, INT32_MIN, -7}).data(), 4,
                      y.data());
  EXPECT_EQ(y, (std::vector<float>{16777216.0f, 16777220.0f, -2147483648.0f, -7.0f}));
  gguf::decode_blocks(t::I64, le_bytes<int64_t>({INT64_MAX, INT64_MIN, (1LL << 40) + 1, 5}).data(),
                      4, y.data());
  EXPECT_EQ(y, (std::vector<float>{0x1p63f, -0x1p63f, 0x1p40f, 5.0f}));
}

TEST(DecodeFloat, F64AndF32) {
  std::vector<float> y(4);
  gguf::decode_blocks(t::F64, le_bytes<double>({0.1, -1e300, 1e-50, 2.5}).data(), 4, y.data());
  EXPECT_EQ(y[0], 0.1f);
  EXPECT_EQ(y[1], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(std::bit_cast<uint32_t>(y[2]), 0u);
  EXPECT_EQ(y[3], 2.5f);
  gguf::decode_blocks(
      t::F32, le_bytes<uint32_t>({0x7F800001u, 0x80000000u, 1u, 0x3F800000u}).data(), 4, y.data());
  // F32 is copied untouched, signalling NaN included.
  EXPECT_EQ(std::bit_cast<uint32_t>(y[0]), 0x7F800001u);
  EXPECT_EQ(std::bit_cast<uint32_t>(y[1]), 0x80000000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(y[2]), 1u);
  EXPECT_EQ(y[3], 1.0f);
}

TEST(DecodeFloat, BigEndianSwapsEachElement) {
  std::vector<float> y(2);
  const uint8_t f32[] = {0x3F, 0x80, 0x00, 0x00, 0xC0, 0x49, 0x0F, 0xDB};  // 1.0, -pi
  gguf::decode_blocks_big_endian(t::F32, f32, 2, y.data());
  EXPECT_EQ(y, (std::vector<float>{1.0f, -3.14159274f}));
  const uint8_t f16[] = {0x3C, 0x00, 0xC0, 0x00};  // 1.0, -2.0
  gguf::decode_blocks_big_endian(t::F16, f16, 2, y.data());
  EXPECT_EQ(y, (std::vector<float>{1.0f, -2.0f}));
  const uint8_t bf16[] = {0x3F, 0x80, 0x40, 0x49};  // 1.0, 3.140625
  gguf::decode_blocks_big_endian(t::BF16, bf16, 2, y.data());
  EXPECT_EQ(y, (std::vector<float>{1.0f, 3.140625f}));
  const uint8_t i16[] = {0xFF, 0xFE, 0x01, 0x00};  // -2, 256
  gguf::decode_blocks_big_endian(t::I16, i16, 2, y.data());
  EXPECT_EQ(y, (std::vector<float>{-2.0f, 256.0f}));
  const uint8_t i64[] = {0, 0, 0, 0, 0, 0, 1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFD};
  gguf::decode_blocks_big_endian(t::I64, i64, 2, y.data());
  EXPECT_EQ(y, (std::vector<float>{256.0f, -3.0f}));
  const uint8_t f64[] = {0x3F, 0xF8, 0, 0, 0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0};  // 1.5, -2
  gguf::decode_blocks_big_endian(t::F64, f64, 2, y.data());
  EXPECT_EQ(y, (std::vector<float>{1.5f, -2.0f}));
  const uint8_t i8[] = {0x80, 0x7F};
  gguf::decode_blocks_big_endian(t::I8, i8, 2, y.data());
  EXPECT_EQ(y, (std::vector<float>{-128.0f, 127.0f}));
}

// More elements than the internal swap chunk, so chunk boundaries are exercised.
TEST(DecodeFloat, BigEndianLongRun) {
  const size_t n = 5000;
  std::vector<uint8_t> be(4 * n);
  for (size_t i = 0; i < n; ++i) {
    const int32_t v = static_cast<int32_t>(i) - 2500;
    const auto u = static_cast<uint32_t>(v);
    for (int k = 0; k < 4; ++k) be[4 * i + k] = static_cast<uint8_t>(u >> (24 - 8 * k));
  }
  std::vector<float> y(n);
  gguf::decode_blocks_big_endian(t::I32, be.data(), n, y.data());
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], static_cast<float>(static_cast<int>(i) - 2500));
}

TEST(DecodeFloat, BigEndianRefusesQuantizedTypes) {
  uint8_t block[18] = {};
  float y[32];
  EXPECT_THROW(gguf::decode_blocks_big_endian(t::Q4_0, block, 1, y), std::invalid_argument);
}

}  // namespace
