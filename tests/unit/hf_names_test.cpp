// Hugging Face names both ways (the seed's Example 11), the un-permute against an independent
// forward permute, and the float32 -> float16 / bfloat16 rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "gguf/decode/decode.hpp"
#include "gguf/hf/encode_float.hpp"
#include "gguf/hf/hf_names.hpp"
#include "gguf/hf/unpermute.hpp"
#include "tests/support/hf_models.hpp"

namespace gguf::hf {
namespace {

// The seed's Example 11 output, line by line (Hugging Face -> GGUF).
const std::vector<std::pair<std::string, std::string>> kExample11 = {
    {"model.embed_tokens.weight", "token_embd.weight"},
    {"model.layers.0.input_layernorm.weight", "blk.0.attn_norm.weight"},
    {"model.layers.0.self_attn.q_proj.weight", "blk.0.attn_q.weight"},
    {"model.layers.0.self_attn.q_proj.bias", "blk.0.attn_q.bias"},
    {"model.layers.0.self_attn.o_proj.weight", "blk.0.attn_output.weight"},
    {"model.layers.0.post_attention_layernorm.weight", "blk.0.ffn_norm.weight"},
    {"model.layers.17.mlp.gate_proj.weight", "blk.17.ffn_gate.weight"},
    {"model.layers.17.mlp.down_proj.weight", "blk.17.ffn_down.weight"},
    {"model.norm.weight", "output_norm.weight"},
    {"lm_head.weight", "output.weight"},
};

const Architecture& llama() {
  return *find_architecture("llama");
}

TEST(HfNames, SeedExample11BothWays) {
  for (const auto& [hf, gguf] : kExample11) {
    EXPECT_EQ(to_gguf(llama(), hf).name, gguf) << hf;
    EXPECT_EQ(to_hf(llama(), gguf).name, hf) << gguf;
  }
}

TEST(HfNames, SeedExample11ErrorCase) {
  try {
    to_gguf(llama(), "model.rotary_emb.inv_freq");
    FAIL() << "model.rotary_emb.inv_freq mapped";
  } catch (const NameError& e) {
    EXPECT_STREQ(e.what(), "cannot map tensor model.rotary_emb.inv_freq");
  }
}

TEST(HfNames, QkRolesAndArchitectures) {
  EXPECT_EQ(to_hf(llama(), "blk.3.attn_q.weight").role, QkRole::q);
  EXPECT_EQ(to_hf(llama(), "blk.3.attn_k.bias").role, QkRole::k);
  EXPECT_EQ(to_hf(llama(), "blk.3.attn_v.weight").role, QkRole::none);
  ASSERT_NE(find_architecture("qwen2"), nullptr);
  ASSERT_NE(find_architecture("qwen3"), nullptr);
  EXPECT_EQ(find_architecture("gpt2"), nullptr);
  EXPECT_TRUE(llama().permutes_qk);
  EXPECT_FALSE(find_architecture("qwen2")->permutes_qk);
  EXPECT_FALSE(find_architecture("qwen3")->permutes_qk);
  // Only qwen3 has per-head Q/K norms.
  EXPECT_EQ(to_hf(*find_architecture("qwen3"), "blk.2.attn_q_norm.weight").name,
            "model.layers.2.self_attn.q_norm.weight");
  EXPECT_THROW(to_hf(llama(), "blk.2.attn_q_norm.weight"), NameError);
}

TEST(HfNames, NamesThatDoNotMap) {
  for (const char* name : {"rope_freqs.weight", "blk.x.attn_q.weight", "blk..attn_q.weight",
                           "blk.0.attn_q", "blk.0.attn_q.", "blk.0.attn_q.weight.extra",
                           "token_embd", "output_norm_x.weight", "xblk.0.attn_q.weight", ""})
    EXPECT_THROW(to_hf(llama(), name), NameError) << name;
  EXPECT_THROW(to_gguf(llama(), "model.layers.0.self_attn.rotary_emb.inv_freq"), NameError);
}

// The forward permute of tests/support (written from the numpy reshape), undone row by row.
TEST(HfUnpermute, InvertsTheConvertersPermute) {
  for (const auto& [rows, heads] :
       std::vector<std::pair<uint64_t, uint64_t>>{{64, 4}, {32, 2}, {64, 16}, {128, 8}, {4, 1}}) {
    ASSERT_TRUE(can_unpermute(rows, heads));
    std::string hf;
    for (uint64_t r = 0; r < rows; ++r) hf += "row" + std::to_string(1000 + r);  // 7 bytes
    const std::string stored = test_support::permute_rows(hf, rows, heads);
    ASSERT_NE(stored, hf) << rows << " rows, " << heads << " heads";
    std::string back(hf.size(), '\0');
    unpermute_rows(stored.data(), back.data(), rows, 7, heads);
    EXPECT_EQ(back, hf) << rows << " rows, " << heads << " heads";
  }
}

TEST(HfUnpermute, TheReferenceRowMapping) {
  // Stored row h*2*half + j*2 + t holds HF row h*2*half + t*half + j: 2 heads of 8 rows.
  const std::vector<uint64_t> want = {0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15};
  for (uint64_t r = 0; r < 16; ++r) EXPECT_EQ(stored_row(r, 16, 2), want[r]) << r;
}

TEST(HfUnpermute, RowsThatDoNotSplit) {
  EXPECT_FALSE(can_unpermute(30, 4));
  EXPECT_FALSE(can_unpermute(12, 4));  // 3 rows per head: no two halves
  EXPECT_FALSE(can_unpermute(16, 0));
}

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

TEST(HfEncodeFloat, Fp16RoundTripsEveryValueAndRoundsTiesToEven) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = fp16_to_fp32(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(fp16_to_fp32(fp32_to_fp16(f)))) << h;
      continue;
    }
    ASSERT_EQ(fp32_to_fp16(f), h) << h;
    // Halfway to the next value up (same sign): ties go to the even one.
    if ((h & 0x7fff) < 0x7bff) {
      const float next = fp16_to_fp32(static_cast<uint16_t>(h + 1));
      const float mid = (f + next) / 2;  // exact in float32
      const uint16_t even = (h & 1) == 0 ? static_cast<uint16_t>(h) : static_cast<uint16_t>(h + 1);
      ASSERT_EQ(fp32_to_fp16(mid), even) << h;
      ASSERT_EQ(fp32_to_fp16(std::nextafter(mid, next)), h + 1) << h;
      ASSERT_EQ(fp32_to_fp16(std::nextafter(mid, f)), h) << h;
    }
  }
  EXPECT_EQ(fp32_to_fp16(65520.0f), 0x7c00);  // rounds up past the largest finite value
  EXPECT_EQ(fp32_to_fp16(65519.99f), 0x7bff);
  EXPECT_EQ(fp32_to_fp16(1e10f), 0x7c00);
  EXPECT_EQ(fp32_to_fp16(-1e-10f), 0x8000);
  EXPECT_EQ(fp32_to_fp16(from_bits(0x33000000)), 0x0000);  // 2^-25: a tie, to even (zero)
  EXPECT_EQ(fp32_to_fp16(from_bits(0x33000001)), 0x0001);
}

TEST(HfEncodeFloat, Bf16RoundsTiesToEven) {
  EXPECT_EQ(fp32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(fp32_to_bf16(from_bits(0x3f808000)), 0x3f80);  // tie, even stays
  EXPECT_EQ(fp32_to_bf16(from_bits(0x3f818000)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(fp32_to_bf16(from_bits(0x3f808001)), 0x3f81);
  EXPECT_EQ(fp32_to_bf16(from_bits(0x7f7fffff)), 0x7f80);  // overflow to infinity
  EXPECT_TRUE(std::isnan(bf16_to_fp32(fp32_to_bf16(std::nanf("")))));
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = bf16_to_fp32(static_cast<uint16_t>(h));
    if (!std::isnan(f)) {
      ASSERT_EQ(fp32_to_bf16(f), h) << h;
    }
  }
}

}  // namespace
}  // namespace gguf::hf
