// `gguffs check --data` against llama.cpp itself (node-llama-cpp 3.21.1 with checkTensors): tiny
// llamas with NaN, Inf or other suspicious bytes planted in tensors of several types. gguffs
// must exit 10 exactly where llama.cpp refuses to load, and 0 exactly where it loads; each case
// also has its fixed expected outcome.
#include <cmath>
#include <cstring>
#include <functional>

#include <gtest/gtest.h>

#include "gguf/decode/decode.hpp"
#include "tests/interop/interop_support.hpp"
#include "tests/mount/mount_fixture.hpp"
#include "tests/support/tiny_llama.hpp"

namespace {

namespace ids = gguf::type_id;
using test_support::TinyLlama;

void put16(std::string& b, size_t at, uint16_t v) {
  b[at] = static_cast<char>(v & 0xFF);
  b[at + 1] = static_cast<char>(v >> 8);
}
void put32(std::string& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
uint16_t get16(const std::string& b, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[at]) | static_cast<uint8_t>(b[at + 1]) << 8);
}

// An F16 tensor turned into BF16 (the same values, truncated to bfloat16).
void to_bf16(test_support::TinyLlamaTensor& t) {
  ASSERT_EQ(t.type_id, ids::F16);
  for (size_t i = 0; i + 1 < t.bytes.size(); i += 2) {
    const float f = gguf::fp16_to_fp32(get16(t.bytes, i));
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    put16(t.bytes, i, static_cast<uint16_t>(bits >> 16));
  }
  t.type_id = ids::BF16;
}

// A Q8_0 tensor replaced by IQ4_NL blocks of the same shape (small scales, varied quants).
void to_iq4_nl(test_support::TinyLlamaTensor& t) {
  ASSERT_EQ(t.type_id, ids::Q8_0);
  const size_t blocks = t.ne[0] * t.ne[1] / 32;
  t.bytes.assign(blocks * 18, '\0');
  for (size_t b = 0; b < blocks; ++b) {
    put16(t.bytes, 18 * b, test_support::fp16_bits(0.0005f));
    for (size_t j = 0; j < 16; ++j)
      t.bytes[18 * b + 2 + j] = static_cast<char>((b * 37 + j * 11) & 0xFF);
  }
  t.type_id = ids::IQ4_NL;
}

struct Case {
  std::string name;
  std::function<void(TinyLlama&)> plant;
  bool refused;      // the fixed expectation, for both programs
  std::string line;  // what gguffs prints for it (a refusal or a warning), "" for nothing
};

std::vector<Case> cases() {
  return {
      {"clean", [](TinyLlama&) {}, false, "tensor data valid: "},
      {"F32 NaN in a norm",
       [](TinyLlama& m) { put32(m.tensor("blk.0.attn_norm.weight").bytes, 4 * 3, 0x7FC00000u); },
       true, "tensor 'blk.0.attn_norm.weight' has invalid data: found nan value at block 3"},
      {"F32 +inf, last element",
       [](TinyLlama& m) { put32(m.tensor("output_norm.weight").bytes, 4 * 255, 0x7F800000u); },
       true, "tensor 'output_norm.weight' has invalid data: found inf value at block 255"},
      {"F16 NaN value",
       [](TinyLlama& m) { put16(m.tensor("blk.1.ffn_down.weight").bytes, 2 * 1000, 0x7E00); }, true,
       "tensor 'blk.1.ffn_down.weight' has invalid data: found nan value at block 1000"},
      {"F16 largest finite values",
       [](TinyLlama& m) {
         put16(m.tensor("blk.1.attn_v.weight").bytes, 0, 0x7BFF);
         put16(m.tensor("blk.1.attn_v.weight").bytes, 2, 0xFBFF);
       },
       false, "tensor data valid: "},
      {"Q8_0 d = -inf",
       [](TinyLlama& m) { put16(m.tensor("token_embd.weight").bytes, 34 * 7, 0xFC00); }, true,
       "tensor 'token_embd.weight' has invalid data: found inf value at block 7"},
      {"Q4_K dmin = NaN",
       [](TinyLlama& m) { put16(m.tensor("blk.0.attn_q.weight").bytes, 144 * 3 + 2, 0x7C01); },
       true, "tensor 'blk.0.attn_q.weight' has invalid data: found nan value at block 3"},
      {"Q4_K garbage quants (not checked)",
       [](TinyLlama& m) {
         std::string& b = m.tensor("blk.1.ffn_gate.weight").bytes;
         std::memset(b.data() + 144 * 2 + 4, 0xFF, 140);
       },
       false, "tensor data valid: "},
      {"all-zero F16 tensor (a warning)",
       [](TinyLlama& m) {
         std::string& b = m.tensor("blk.0.attn_v.weight").bytes;
         std::memset(b.data(), 0, b.size());
       },
       false, "warning: tensor 'blk.0.attn_v.weight': all "},
      {"BF16 clean", [](TinyLlama& m) { to_bf16(m.tensor("blk.0.ffn_down.weight")); }, false,
       "tensor data valid: "},
      {"BF16 NaN and inf",
       [](TinyLlama& m) {
         auto& t = m.tensor("blk.0.ffn_down.weight");
         to_bf16(t);
         put16(t.bytes, 2 * 10, 0xFFC1);
         put16(t.bytes, 2 * 20, 0x7F80);
       },
       true,
       "tensor 'blk.0.ffn_down.weight' has invalid data: found 1 NaNs in row of 131072 BF16 "
       "values"},
      {"IQ4_NL clean", [](TinyLlama& m) { to_iq4_nl(m.tensor("blk.1.ffn_up.weight")); }, false,
       "tensor data valid: "},
      {"IQ4_NL d = NaN",
       [](TinyLlama& m) {
         auto& t = m.tensor("blk.1.ffn_up.weight");
         to_iq4_nl(t);
         put16(t.bytes, 18 * 5, 0x7E00);
       },
       true, "tensor 'blk.1.ffn_up.weight' has invalid data: found nan value at block 5"},
  };
}

TEST(HealthCheck, RefusesExactlyWhereLlamaCppRefuses) {
  REQUIRE_TOOL(interop::node_clients_unavailable());
  const TinyLlama base = test_support::make_tiny_llama(test_support::data_file("gpt2-vocab.gguf"),
                                                       test_support::TinyLlamaTypes::mixed);
  test_support::TempDir dir;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    TinyLlama m = base;
    c.plant(m);
    const auto path = dir / "planted.gguf";
    m.write(path);
    const auto ours = mount_test::run_gguffs({"check", "--data", path.string()});
    const auto llama = interop::run_node_script("llama.mjs", {path.string(), "--check-tensors"});
    const bool llama_refused = !llama.json.value("loaded", false);
    EXPECT_EQ(llama_refused, c.refused) << llama.json.dump() << "\n" << llama.err;
    EXPECT_EQ(llama.exit_code, c.refused ? 3 : 0) << llama.err;
    EXPECT_EQ(ours.exit_code, c.refused ? 10 : 0) << ours.out << ours.err;
    EXPECT_EQ(ours.exit_code == 10, llama_refused) << ours.out;
    EXPECT_NE(ours.out.find(c.line), std::string::npos) << ours.out;
    // llama.cpp's own log names the tensor gguffs names.
    if (llama_refused) {
      const std::string tensor = c.line.substr(0, c.line.find(" has invalid data"));
      EXPECT_NE(llama.err.find(tensor + " has invalid data"), std::string::npos) << llama.err;
    }
  }
}

}  // namespace
