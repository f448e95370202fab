// The seed lesson's printed figures (the Java lesson this project grew from), reproduced through
// writer and parser: Examples 1, 6, 12, 14, 15 and 17.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <map>

#include "gguf/parser.hpp"
#include "gguf/writer.hpp"
#include "tests/support/model_builders.hpp"
#include "tests/support/test_support.hpp"

namespace {

using gguf::OwnedValue;
using gguf::Writer;
using test_support::parse_bytes;

std::string f32_bytes(const std::vector<float>& v) {
  std::string out(v.size() * 4, '\0');
  std::memcpy(out.data(), v.data(), out.size());  // little-endian host
  return out;
}

// fp32 -> fp16, round to nearest even (reference §5). Enough for the finite scales used here.
uint16_t fp16_bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = x & 0x7FFFFF;
  if (exp <= 0) {  // subnormal half (or zero)
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  if (half >= 0x7C00) half = 0x7C00;
  return static_cast<uint16_t>(sign | half);
}

float fp16_value(uint16_t h) {
  int exp = (h >> 10) & 0x1F;
  int mant = h & 0x3FF;
  float v = exp == 0 ? std::ldexp(static_cast<float>(mant), -24)
                     : std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
  return (h & 0x8000) ? -v : v;
}

// quantize_row_q8_0_ref as the seed describes it: per 32 values, d = amax / 127 stored as fp16,
// then roundf(x / d) (halves away from zero) as int8.
std::string q8_0(const std::vector<float>& x) {
  std::string out;
  for (size_t b = 0; b < x.size(); b += 32) {
    float amax = 0;
    for (size_t j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[b + j]));
    float d = amax / 127, id = d != 0 ? 1 / d : 0;
    uint16_t h = fp16_bits(d);
    out += static_cast<char>(h & 0xFF);
    out += static_cast<char>(h >> 8);
    for (size_t j = 0; j < 32; ++j) {
      out += static_cast<char>(static_cast<int8_t>(std::roundf(x[b + j] * id)));
    }
  }
  return out;
}

TEST(SeedExamples, Example1Layout) {
  Writer w;
  w.add("general.architecture", OwnedValue::string("llama"));
  w.add_tensor("output_norm.weight", {64}, gguf::type_id::F32, f32_bytes(std::vector(64, 1.0f)));
  w.add_tensor("token_embd.weight", {64, 3}, gguf::type_id::Q8_0, std::string(204, '\0'));
  auto m = parse_bytes(w.to_bytes());
  ASSERT_EQ(m->metadata.size(), 1u);
  EXPECT_EQ(m->metadata[0].file_offset, 24u);  // metadata 24 .. 69
  ASSERT_EQ(m->tensors.size(), 2u);
  EXPECT_EQ(m->tensors[0].info_offset, 69u);  // infos 69 .. 176 (50 + 57 bytes)
  EXPECT_EQ(m->tensors[1].info_offset, 69u + 50);
  EXPECT_EQ(m->data_offset, 192u);
  EXPECT_EQ(m->tensors[0].offset, 0u);
  EXPECT_EQ(m->tensors[1].offset, 256u);
  EXPECT_EQ(m->tensors[0].file_offset, 192u);
  EXPECT_EQ(m->tensors[1].file_offset, 448u);
  EXPECT_EQ(m->tensors[0].bytes, 256u);
  EXPECT_EQ(m->tensors[1].bytes, 204u);
}

TEST(SeedExamples, Example6SmallFileWithQ8_0) {
  std::vector<float> w(64 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(std::sin(i * 0.1)) * 0.05f;
  std::string q = q8_0(w);
  ASSERT_EQ(q.size(), 204u);

  Writer writer;
  writer.add("general.architecture", OwnedValue::string("llama"));
  writer.add("general.name", OwnedValue::string("java-written"));
  writer.add("llama.embedding_length", OwnedValue::u32(64));
  writer.add("llama.attention.layer_norm_rms_epsilon", OwnedValue::f32(1e-5f));
  writer.add("tokenizer.ggml.tokens", OwnedValue::string_array({"<s>", "hello", "world"}));
  writer.add_tensor("output_norm.weight", {64}, gguf::type_id::F32,
                    f32_bytes(std::vector(64, 1.0f)));
  writer.add_tensor("token_embd.weight", {64, 3}, gguf::type_id::Q8_0, q);
  std::string file = writer.to_bytes();
  EXPECT_EQ(file.size(), 896u);
  EXPECT_EQ(file.substr(0, 4), "GGUF");

  auto m = parse_bytes(file);
  EXPECT_EQ(m->n_kv, 5u);
  EXPECT_EQ(m->data_offset, 416u);
  ASSERT_EQ(m->tensors.size(), 2u);
  EXPECT_EQ(m->tensors[0].elements, 64u);
  EXPECT_EQ(m->tensors[1].elements, 192u);
  EXPECT_EQ(m->tensors[1].bytes, 204u);
  EXPECT_EQ(m->tensors[1].file_offset, 672u);
  EXPECT_EQ(m->find("llama.attention.layer_norm_rms_epsilon")->value.f32(), 1e-5f);
  EXPECT_EQ(static_cast<double>(m->find("llama.attention.layer_norm_rms_epsilon")->value.f32()),
            9.999999747378752e-06);

  // Dequantized from the parsed location: within 0.0002 of the original, as the seed reports.
  std::string stored = file.substr(m->tensors[1].file_offset, m->tensors[1].bytes);
  float max_err = 0;
  for (size_t b = 0; b < 6; ++b) {
    const auto* blk = reinterpret_cast<const unsigned char*>(stored.data() + 34 * b);
    float d = fp16_value(static_cast<uint16_t>(blk[0] | (blk[1] << 8)));
    for (size_t j = 0; j < 32; ++j) {
      float v = d * static_cast<float>(static_cast<int8_t>(blk[2 + j]));
      max_err = std::max(max_err, std::fabs(v - w[32 * b + j]));
    }
  }
  EXPECT_EQ(std::round(max_err * 1e4) / 1e4, 0.0002);  // "a maximum error of 0.0002"
}

TEST(SeedExamples, Example12TensorByteSizes) {
  const std::vector<std::pair<uint32_t, uint64_t>> cases = {
      {gguf::type_id::F32, 234'881'024},  {gguf::type_id::F16, 117'440'512},
      {gguf::type_id::BF16, 117'440'512}, {gguf::type_id::Q8_0, 62'390'272},
      {gguf::type_id::Q4_0, 33'030'144},  {gguf::type_id::Q4_K, 33'030'144},
      {gguf::type_id::Q6_K, 48'168'960},  {gguf::type_id::IQ4_XS, 31'195'136}};
  for (auto [type, bytes] : cases) {
    Writer w;
    w.add_tensor_raw("blk.0.ffn_up.weight", {4096, 14336}, type, 0);  // header only
    auto m = parse_bytes(w.to_bytes());
    EXPECT_EQ(m->tensors.at(0).bytes, bytes) << type;
    EXPECT_EQ(m->tensors.at(0).bytes_present, 0u);
    EXPECT_EQ(m->missing_bytes(), bytes);
  }
  Writer out;
  out.add_tensor_raw("output.weight", {256, 151936}, gguf::type_id::Q6_K, 0);
  auto m = parse_bytes(out.to_bytes());
  EXPECT_EQ(std::round(m->tensors.at(0).bytes / 1048576.0 * 100) / 100, 30.43);

  Writer ragged;
  ragged.add_tensor_raw("blk.0.ffn_down.weight", {704, 256}, gguf::type_id::Q4_K, 0);
  auto r = parse_bytes(ragged.to_bytes());
  EXPECT_TRUE(test_support::has_line_with(
      r->warnings, {"blk.0.ffn_down.weight", "not a multiple of the block size"}));
}

struct Mix {
  uint64_t tensors = 0, params = 0, bytes = 0;
  bool operator==(const Mix&) const = default;
};

std::map<std::string, Mix> quant_mix(const gguf::Model& m) {
  std::map<std::string, Mix> mix;
  for (const auto& t : m.tensors) {
    Mix& x = mix[std::string(gguf::tensor_type(t.type_id)->name)];
    ++x.tensors;
    x.params += t.elements;
    x.bytes += t.bytes;
  }
  return mix;
}

void PrintTo(const Mix& m, std::ostream* os) {
  *os << m.tensors << " tensors " << m.params << " params " << m.bytes << " bytes";
}

TEST(SeedExamples, Example15QuantMix) {
  Writer w;
  w.add_zero_tensor("token_embd.weight", {256, 1000}, gguf::type_id::Q4_K);
  w.add_zero_tensor("blk.0.attn_norm.weight", {256}, gguf::type_id::F32);
  w.add_zero_tensor("blk.0.attn_q.weight", {256, 256}, gguf::type_id::Q4_K);
  w.add_zero_tensor("blk.0.attn_k.weight", {256, 64}, gguf::type_id::Q4_K);
  w.add_zero_tensor("blk.0.attn_v.weight", {256, 64}, gguf::type_id::Q6_K);
  w.add_zero_tensor("blk.0.attn_output.weight", {256, 256}, gguf::type_id::Q4_K);
  w.add_zero_tensor("blk.0.ffn_norm.weight", {256}, gguf::type_id::F32);
  w.add_zero_tensor("blk.0.ffn_gate.weight", {256, 704}, gguf::type_id::Q4_K);
  w.add_zero_tensor("blk.0.ffn_up.weight", {256, 704}, gguf::type_id::Q4_K);
  w.add_zero_tensor("blk.0.ffn_down.weight", {704, 256}, gguf::type_id::Q5_0);
  w.add_zero_tensor("output_norm.weight", {256}, gguf::type_id::F32);
  w.add_zero_tensor("output.weight", {256, 1000}, gguf::type_id::Q6_K);
  auto m = parse_bytes(w.to_bytes());
  auto mix = quant_mix(*m);
  EXPECT_EQ(mix.size(), 4u);
  EXPECT_EQ(mix["F32"], (Mix{3, 768, 3072}));
  EXPECT_EQ(mix["Q4_K"], (Mix{6, 763904, 429696}));
  EXPECT_EQ(mix["Q5_0"], (Mix{1, 180224, 123904}));
  EXPECT_EQ(mix["Q6_K"], (Mix{2, 272384, 223440}));
  uint64_t params = 0, bytes = 0;
  for (const auto& [name, x] : mix) params += x.params, bytes += x.bytes;
  EXPECT_EQ(params, 1217280u);
  EXPECT_EQ(bytes, 780112u);
  EXPECT_EQ(std::round(bytes * 8.0 / params * 1000) / 1000, 5.127);
}

TEST(SeedExamples, Example17DemoFile) {
  std::string file = test_support::ggufinfo_demo_writer().to_bytes();
  EXPECT_EQ(file.size(), 496u);
  auto m = parse_bytes(file);
  EXPECT_EQ(m->version, 3u);
  EXPECT_EQ(m->n_kv, 3u);
  EXPECT_EQ(m->n_tensors, 1u);
  EXPECT_EQ(m->alignment, 32u);
  EXPECT_EQ(m->data_offset, 224u);
  EXPECT_EQ(m->find("general.file_type")->value.bits, 7u);
  EXPECT_EQ(gguf::file_type_name(m->find("general.file_type")->value.bits), "MOSTLY_Q8_0");
  EXPECT_EQ(m->find("llama.embedding_length")->value.bits, 64u);
  auto mix = quant_mix(*m);
  EXPECT_EQ(mix["Q8_0"], (Mix{1, 256, 272}));
  EXPECT_TRUE(m->tensors[0].data_complete());
  EXPECT_TRUE(m->warnings.empty());
}

TEST(SeedExamples, Example17TinyQ4KMModel) {
  test_support::TempDir dir;
  std::string path = (dir / "tiny-Q4_K_M.gguf").string();
  test_support::tiny_q4_k_m_writer().write_file(path);
  auto m = gguf::parse_file(path);
  EXPECT_EQ(m->version, 3u);
  EXPECT_EQ(m->n_kv, 22u);
  EXPECT_EQ(m->n_tensors, 39u);
  EXPECT_EQ(m->alignment, 32u);
  EXPECT_EQ(m->data_offset, 5'931'072u);
  EXPECT_EQ(m->file_size, 61'544'512u);
  EXPECT_TRUE(m->warnings.empty());
  EXPECT_EQ(m->find("general.architecture")->value.str, "llama");
  EXPECT_EQ(m->find("general.name")->value.str, "tiny-random-llama");
  EXPECT_EQ(gguf::file_type_name(m->find("general.file_type")->value.bits), "MOSTLY_Q4_K_M");
  EXPECT_EQ(m->find("llama.context_length")->value.bits, 4096u);
  EXPECT_EQ(m->find("llama.embedding_length")->value.bits, 256u);
  EXPECT_EQ(m->find("llama.block_count")->value.bits, 4u);
  EXPECT_EQ(m->find("llama.feed_forward_length")->value.bits, 704u);
  EXPECT_EQ(m->find("llama.attention.head_count")->value.bits, 8u);
  EXPECT_EQ(m->find("llama.attention.head_count_kv")->value.bits, 2u);
  EXPECT_EQ(m->find("llama.rope.freq_base")->value.f32(), 500000.0f);
  EXPECT_EQ(m->find("tokenizer.ggml.tokens")->value.array.count, 151'936u);
  EXPECT_NE(m->find("tokenizer.chat_template"), nullptr);
  auto mix = quant_mix(*m);
  EXPECT_EQ(mix.size(), 5u);
  EXPECT_EQ(mix["F32"], (Mix{9, 2'304, 9'216}));
  EXPECT_EQ(mix["Q4_K"], (Mix{23, 40'960'000, 23'040'000}));
  EXPECT_EQ(mix["Q5_0"], (Mix{2, 360'448, 247'808}));
  EXPECT_EQ(mix["Q6_K"], (Mix{3, 38'928'384, 31'933'440}));
  EXPECT_EQ(mix["Q8_0"], (Mix{2, 360'448, 382'976}));
  uint64_t params = 0, bytes = 0;
  for (const auto& [name, x] : mix) params += x.params, bytes += x.bytes;
  EXPECT_EQ(params, 80'611'584u);
  EXPECT_EQ(bytes, 55'613'440u);
}

TEST(SeedExamples, Example14Llama3VocabularyShape) {
  auto m = parse_bytes(test_support::llama3_vocab_writer().to_bytes());
  EXPECT_EQ(m->n_kv, 20u);
  EXPECT_EQ(m->n_tensors, 0u);
  EXPECT_EQ(m->data_offset, 7'818'144u);
  EXPECT_EQ(m->find("tokenizer.ggml.tokens")->value.array.count, 128'256u);
  EXPECT_EQ(m->find("tokenizer.ggml.token_type")->value.array.count, 128'256u);
  EXPECT_EQ(m->find("tokenizer.ggml.merges")->value.array.count, 280'147u);
  EXPECT_EQ(m->find("llama.vocab_size")->value.bits, 128'256u);
  EXPECT_EQ(m->find("tokenizer.ggml.bos_token_id")->value.bits, 128'000u);
  EXPECT_TRUE(m->warnings.empty());
}

}  // namespace
