// Which types decode, what happens for the others, and the lookup tables against ggml's dumps.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <stdexcept>
#include <string>

#include "gguf/decode/decode.hpp"
#include "gguf/decode/decode_tables.hpp"
#include "gguf/types.hpp"
#include "tests/support/test_support.hpp"

namespace {

namespace t = gguf::type_id;

TEST(DecodeApi, CanDecodeExactlyTheTypesGgmlCanDequantize) {
  // Reference §1.2: every usable id except Q8_1 (Q8_K is included: dequantize_row_q8_K).
  const std::set<uint32_t> decodable = {
      t::F32,    t::F16,     t::Q4_0,  t::Q4_1,   t::Q5_0,  t::Q5_1,  t::Q8_0,
      t::Q2_K,   t::Q3_K,    t::Q4_K,  t::Q5_K,   t::Q6_K,  t::Q8_K,  t::IQ2_XXS,
      t::IQ2_XS, t::IQ3_XXS, t::IQ1_S, t::IQ4_NL, t::IQ3_S, t::IQ2_S, t::IQ4_XS,
      t::I8,     t::I16,     t::I32,   t::I64,    t::F64,   t::IQ1_M, t::BF16,
      t::TQ1_0,  t::TQ2_0,   t::MXFP4, t::NVFP4,  t::Q1_0,  t::Q2_0};
  EXPECT_EQ(decodable.size(), 34u);
  for (uint32_t id = 0; id < 100; ++id) {
    EXPECT_EQ(gguf::can_decode(id), decodable.count(id) == 1) << "type id " << id;
  }
  EXPECT_FALSE(gguf::can_decode(0xFFFFFFFFu));
}

TEST(DecodeApi, UndecodableTypesThrow) {
  uint8_t block[64] = {};
  float y[64];
  for (uint32_t id : {t::Q8_1, 4u, 5u, 31u, 36u, 38u, 43u, 1000u}) {
    EXPECT_THROW(gguf::decode_blocks(id, block, 1, y), std::invalid_argument) << id;
  }
  try {
    gguf::decode_blocks(t::Q8_1, block, 1, y);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Q8_1"), std::string::npos) << e.what();
  }
}

TEST(DecodeApi, ZeroBlocksWritesNothing) {
  float y = 42.0f;
  gguf::decode_blocks(t::Q4_K, nullptr, 0, &y);
  gguf::decode_blocks(t::F16, nullptr, 0, &y);
  EXPECT_EQ(y, 42.0f);
}

// Q8_K has no reference vector; its layout is an f32 d then int8 qs[256]: y = d * q.
TEST(DecodeApi, Q8KIsScaleTimesQuant) {
  uint8_t block[292] = {};
  const float d = 0.5f;
  std::memcpy(block, &d, 4);  // the tests run on little-endian hosts
  for (int j = 0; j < 256; ++j) block[4 + j] = static_cast<uint8_t>(j - 128);
  float y[256];
  gguf::decode_blocks(t::Q8_K, block, 1, y);
  for (int j = 0; j < 256; ++j) ASSERT_EQ(y[j], 0.5f * static_cast<float>(j - 128)) << j;
}

// Q1_0 and Q2_0 by hand, from the rules of reference §1.4.
TEST(DecodeApi, Q1AndQ2ByHand) {
  uint8_t q1[18] = {0x00, 0x3C};  // d = 1.0
  q1[2] = 0x05;                   // elements 0 and 2 are +d
  float y[128];
  gguf::decode_blocks(t::Q1_0, q1, 1, y);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], -1.0f);
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(y[127], -1.0f);
  uint8_t q2[18] = {0x00, 0x40};  // d = 2.0
  q2[2] = 0xE4;                   // codes 0, 1, 2, 3
  gguf::decode_blocks(t::Q2_0, q2, 1, y);
  EXPECT_EQ(y[0], -2.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 2.0f);
  EXPECT_EQ(y[3], 4.0f);
  EXPECT_EQ(y[4], -2.0f);
}

// MXFP4's E8M0 scale: e=0 and e=1 are subnormal halves (reference §1.4).
TEST(DecodeApi, Mxfp4SmallExponents) {
  uint8_t block[17] = {};
  block[1] = 0x02;  // element 0 = kvalues_fp4[2] = 2
  float y[32];
  block[0] = 0;
  gguf::decode_blocks(t::MXFP4, block, 1, y);
  EXPECT_EQ(y[0], 2.0f * 0x1p-128f);
  block[0] = 1;
  gguf::decode_blocks(t::MXFP4, block, 1, y);
  EXPECT_EQ(y[0], 2.0f * 0x1p-127f);
  block[0] = 128;
  gguf::decode_blocks(t::MXFP4, block, 1, y);
  EXPECT_EQ(y[0], 2.0f);
}

// NVFP4's UE4M3 scale, halved: 0x00 and 0x7F give 0, bit 7 is ignored (0x80 gives 0), 0xFF gives
// 240 (reference §1.4). Each element is kvalues_fp4[2] = 2.
TEST(DecodeApi, Nvfp4ScaleEdgeCases) {
  uint8_t block[36] = {};
  block[0] = 0x7F;
  block[1] = 0xFF;
  block[2] = 0x80;
  block[3] = 0x38;  // e=7, m=0: 1.0, halved 0.5
  for (int i = 4; i < 36; ++i) block[i] = 0x22;
  float y[64];
  gguf::decode_blocks(t::NVFP4, block, 1, y);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[16], 480.0f);
  EXPECT_EQ(y[32], 0.0f);
  EXPECT_EQ(y[48], 1.0f);
}

std::string table(const char* name) {
  return test_support::read_file(test_support::data_file(std::string("tables/") + name));
}

TEST(DecodeTables, ComputedSignTablesMatchGgml) {
  const std::string signs = table("ksigns_iq2xs.bin");
  ASSERT_EQ(signs.size(), 128u);
  EXPECT_EQ(std::memcmp(signs.data(), gguf::decode::kSignsIq2xs.data(), 128), 0);
  const std::string mask = table("kmask_iq2xs.bin");
  ASSERT_EQ(mask.size(), 8u);
  EXPECT_EQ(std::memcmp(mask.data(), gguf::decode::kMaskIq2xs.data(), 8), 0);
}

TEST(DecodeTables, GeneratedGridsMatchTheDumps) {
  namespace d = gguf::decode;
  EXPECT_EQ(table("iq2xxs_grid.bin"),
            std::string(reinterpret_cast<const char*>(d::kIq2xxsGrid), sizeof d::kIq2xxsGrid));
  EXPECT_EQ(table("iq2xs_grid.bin"),
            std::string(reinterpret_cast<const char*>(d::kIq2xsGrid), sizeof d::kIq2xsGrid));
  EXPECT_EQ(table("iq2s_grid.bin"),
            std::string(reinterpret_cast<const char*>(d::kIq2sGrid), sizeof d::kIq2sGrid));
  EXPECT_EQ(table("iq3xxs_grid.bin"),
            std::string(reinterpret_cast<const char*>(d::kIq3xxsGrid), sizeof d::kIq3xxsGrid));
  EXPECT_EQ(table("iq3s_grid.bin"),
            std::string(reinterpret_cast<const char*>(d::kIq3sGrid), sizeof d::kIq3sGrid));
  EXPECT_EQ(table("iq1s_grid.bin"),
            std::string(reinterpret_cast<const char*>(d::kIq1sGrid), sizeof d::kIq1sGrid));
}

TEST(DecodeTables, KnownEntries) {
  namespace d = gguf::decode;
  // The values the reference lists in §1.4.
  const int8_t iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                            1,    13,   25,  38,  53,  69,  89,  113};
  EXPECT_EQ(std::memcmp(d::kValuesIq4nl, iq4nl, 16), 0);
  const int8_t fp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
  EXPECT_EQ(std::memcmp(d::kValuesFp4, fp4, 16), 0);
  // Entry 0 of the IQ2 grids is all 8s; every grid byte is from the sets of reference §1.5.
  for (int j = 0; j < 8; ++j) EXPECT_EQ(d::kIq2xxsGrid[0][j], 8);
  for (const auto& entry : d::kIq2sGrid) {
    for (uint8_t v : entry) ASSERT_TRUE(v == 8 || v == 25 || v == 43);
  }
  for (const auto& entry : d::kIq1sGrid) {
    for (int8_t v : entry) ASSERT_TRUE(v >= -1 && v <= 1);
  }
  for (const auto& entry : d::kIq3sGrid) {
    for (uint8_t v : entry) ASSERT_TRUE(v % 2 == 1 && v <= 15);
  }
}

}  // namespace
