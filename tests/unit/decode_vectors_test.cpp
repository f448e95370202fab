// Every quantized type decodes ggml's reference blocks (reference/vectors/<type>.in.bin) to
// exactly the float32 bits ggml's to_float produced (<type>.out.f32).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gguf/decode/decode.hpp"
#include "gguf/types.hpp"
#include "tests/support/test_support.hpp"

namespace {

struct VectorCase {
  const char* file;  // ggml's lowercase type name
  uint32_t type_id;
};

// Compares float32 bit patterns; two NaNs count as equal whatever their payload.
testing::AssertionResult same_floats(const std::vector<float>& got, const std::string& want) {
  if (want.size() != got.size() * sizeof(float)) {
    return testing::AssertionFailure()
           << "reference has " << want.size() / 4 << " floats, decoded " << got.size();
  }
  size_t mismatches = 0;
  std::string first;
  for (size_t i = 0; i < got.size(); ++i) {
    float w;
    std::memcpy(&w, want.data() + 4 * i, 4);
    uint32_t gb, wb;
    std::memcpy(&gb, &got[i], 4);
    std::memcpy(&wb, &w, 4);
    if (gb == wb || (std::isnan(got[i]) && std::isnan(w))) continue;
    if (mismatches++ == 0) {
      first = "element " + std::to_string(i) + ": got " + std::to_string(got[i]) + " want " +
              std::to_string(w);
    }
  }
  if (mismatches == 0) return testing::AssertionSuccess();
  return testing::AssertionFailure() << mismatches << " mismatches, first " << first;
}

class DecodeVectors : public testing::TestWithParam<VectorCase> {};

TEST_P(DecodeVectors, MatchesGgmlBitForBit) {
  const VectorCase c = GetParam();
  const auto type = gguf::tensor_type(c.type_id);
  ASSERT_TRUE(type.has_value());
  const std::string dir = std::string("vectors/") + c.file;
  const std::string in = test_support::read_file(test_support::data_file(dir + ".in.bin"));
  const std::string out = test_support::read_file(test_support::data_file(dir + ".out.f32"));
  ASSERT_EQ(in.size(), 4u * type->block_bytes) << "the reference holds 4 blocks";
  ASSERT_TRUE(gguf::can_decode(c.type_id));
  std::vector<float> got(4 * type->block_size);
  gguf::decode_blocks(c.type_id, reinterpret_cast<const uint8_t*>(in.data()), 4, got.data());
  EXPECT_TRUE(same_floats(got, out));
}

namespace t = gguf::type_id;
INSTANTIATE_TEST_SUITE_P(
    AllQuantized, DecodeVectors,
    testing::Values(
        VectorCase{"q4_0", t::Q4_0}, VectorCase{"q4_1", t::Q4_1}, VectorCase{"q5_0", t::Q5_0},
        VectorCase{"q5_1", t::Q5_1}, VectorCase{"q8_0", t::Q8_0}, VectorCase{"q1_0", t::Q1_0},
        VectorCase{"q2_0", t::Q2_0}, VectorCase{"mxfp4", t::MXFP4}, VectorCase{"nvfp4", t::NVFP4},
        VectorCase{"iq4_nl", t::IQ4_NL}, VectorCase{"q2_K", t::Q2_K}, VectorCase{"q3_K", t::Q3_K},
        VectorCase{"q4_K", t::Q4_K}, VectorCase{"q5_K", t::Q5_K}, VectorCase{"q6_K", t::Q6_K},
        VectorCase{"tq1_0", t::TQ1_0}, VectorCase{"tq2_0", t::TQ2_0},
        VectorCase{"iq2_xxs", t::IQ2_XXS}, VectorCase{"iq2_xs", t::IQ2_XS},
        VectorCase{"iq2_s", t::IQ2_S}, VectorCase{"iq3_xxs", t::IQ3_XXS},
        VectorCase{"iq3_s", t::IQ3_S}, VectorCase{"iq1_s", t::IQ1_S}, VectorCase{"iq1_m", t::IQ1_M},
        VectorCase{"iq4_xs", t::IQ4_XS}),
    [](const testing::TestParamInfo<VectorCase>& info) { return std::string(info.param.file); });

// The first outputs the reference document quotes, as an independent spot check.
TEST(DecodeVectorsSpot, FirstValuesQuotedInTheReference) {
  const auto first4 = [](const char* file, uint32_t id, size_t block_floats) {
    const std::string in = test_support::read_file(
        test_support::data_file(std::string("vectors/") + file + ".in.bin"));
    std::vector<float> y(4 * block_floats);
    gguf::decode_blocks(id, reinterpret_cast<const uint8_t*>(in.data()), 4, y.data());
    return std::vector<float>(y.begin(), y.begin() + 4);
  };
  EXPECT_EQ(first4("q4_K", t::Q4_K, 256),
            (std::vector<float>{-17.375f, 72.859375f, 163.09375f, 18.71875f}));
  EXPECT_EQ(first4("nvfp4", t::NVFP4, 64), (std::vector<float>{-5.5f, -11.0f, 22.0f, -8.25f}));
  const auto q4_0 = first4("q4_0", t::Q4_0, 32);
  EXPECT_FLOAT_EQ(q4_0[0], 0.122131348f);
  EXPECT_FLOAT_EQ(q4_0[1], -0.0763320923f);
}

}  // namespace
