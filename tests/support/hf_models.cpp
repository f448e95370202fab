#include "tests/support/hf_models.hpp"

#include <cstring>
#include <random>

#include "gguf/types.hpp"

namespace test_support {

namespace {

constexpr uint64_t kEmbd = 64, kFf = 32, kVocab = 8, kHeadDim = 16;

std::string floats_bytes(const std::vector<float>& v) {
  std::string out(v.size() * 4, '\0');
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

struct Builder {
  std::string arch;
  uint32_t n_head, n_head_kv;
  HfTestModel model;
  std::mt19937 rng{20261130};

  void add(const std::string& gguf_name, const std::string& hf_name,
           const std::vector<uint64_t>& ne, uint32_t type, const std::string& stored,
           const std::string& dtype, const std::string& hf_data) {
    model.writer.add_tensor(gguf_name, ne, type, stored);
    std::vector<uint64_t> shape(ne.rbegin(), ne.rend());
    model.tensors[hf_name] = HfTestTensor{dtype, shape, hf_data};
  }

  // Random binary16 values that are finite (exponent field below 31).
  std::string f16_values(uint64_t n) {
    std::string out(n * 2, '\0');
    for (uint64_t i = 0; i < n; ++i) {
      auto h = static_cast<uint16_t>(rng());
      if ((h & 0x7c00) == 0x7c00) h &= 0xbfff;
      out[2 * i] = static_cast<char>(h & 0xff);
      out[2 * i + 1] = static_cast<char>(h >> 8);
    }
    return out;
  }
  // Random bfloat16 values: the top halves of finite floats in [-2, 2).
  std::string bf16_values(uint64_t n) {
    std::uniform_real_distribution<float> d(-2.0f, 2.0f);
    std::string out(n * 2, '\0');
    for (uint64_t i = 0; i < n; ++i) {
      const float f = d(rng);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      out[2 * i] = static_cast<char>((bits >> 16) & 0xff);
      out[2 * i + 1] = static_cast<char>(bits >> 24);
    }
    return out;
  }
  std::vector<float> f32_values(uint64_t n) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& f : v) f = d(rng);
    return v;
  }

  // Q8_0 rows (ne0 = kEmbd, two blocks a row) and the float32 values they hold: quants times a
  // scale that is a power of two, so every product is exact.
  std::pair<std::string, std::string> q8_0_values(uint64_t rows) {
    static constexpr uint16_t kScales[] = {0x3800, 0x3400, 0x3000, 0x4000};  // .5 .25 .125 2
    static constexpr float kScaleValues[] = {0.5f, 0.25f, 0.125f, 2.0f};
    std::string stored;
    std::vector<float> values;
    for (uint64_t b = 0; b < rows * kEmbd / 32; ++b) {
      const auto s = rng() % 4;
      stored.push_back(static_cast<char>(kScales[s] & 0xff));
      stored.push_back(static_cast<char>(kScales[s] >> 8));
      for (int i = 0; i < 32; ++i) {
        const int q = static_cast<int>(rng() % 255) - 127;
        stored.push_back(static_cast<char>(static_cast<int8_t>(q)));
        values.push_back(static_cast<float>(q) * kScaleValues[s]);
      }
    }
    return {stored, floats_bytes(values)};
  }

  // Stored rows: permuted like the converter for llama's Q/K.
  std::string stored_rows(const std::string& hf, uint64_t rows, uint64_t heads, bool qk) const {
    return qk && arch == "llama" ? permute_rows(hf, rows, heads) : hf;
  }

  void layer(int b, bool quantized) {
    const std::string g = "blk." + std::to_string(b) + ".";
    const std::string h = "model.layers." + std::to_string(b) + ".";
    const uint64_t q_rows = n_head * kHeadDim, kv_rows = n_head_kv * kHeadDim;
    const std::string attn_norm = floats_bytes(f32_values(kEmbd));
    add(g + "attn_norm.weight", h + "input_layernorm.weight", {kEmbd}, gguf::type_id::F32,
        attn_norm, "F32", attn_norm);
    // Q, K (permuted for llama), V.
    struct Proj {
      const char* g;
      const char* h;
      uint64_t rows, heads;
      bool qk;
    };
    for (const Proj p : {Proj{"attn_q", "self_attn.q_proj", q_rows, n_head, true},
                         Proj{"attn_k", "self_attn.k_proj", kv_rows, n_head_kv, true},
                         Proj{"attn_v", "self_attn.v_proj", kv_rows, n_head_kv, false}}) {
      if (quantized) {
        auto [stored, values] = q8_0_values(p.rows);
        // Q8_0 rows are whole blocks, so permuting stored rows permutes the values' rows.
        add(g + p.g + ".weight", h + p.h + ".weight", {kEmbd, p.rows}, gguf::type_id::Q8_0,
            stored_rows(stored, p.rows, p.heads, p.qk), "F32", values);
      } else {
        const std::string hf = f16_values(kEmbd * p.rows);
        add(g + p.g + ".weight", h + p.h + ".weight", {kEmbd, p.rows}, gguf::type_id::F16,
            stored_rows(hf, p.rows, p.heads, p.qk), "F16", hf);
        if (p.qk) {
          const std::string bias = floats_bytes(f32_values(p.rows));
          add(g + p.g + ".bias", h + p.h + ".bias", {p.rows}, gguf::type_id::F32,
              stored_rows(bias, p.rows, p.heads, true), "F32", bias);
        }
      }
    }
    const std::string o = f16_values(q_rows * kEmbd);
    add(g + "attn_output.weight", h + "self_attn.o_proj.weight", {q_rows, kEmbd},
        gguf::type_id::F16, o, "F16", o);
    const std::string norm = floats_bytes(f32_values(kEmbd));
    add(g + "ffn_norm.weight", h + "post_attention_layernorm.weight", {kEmbd}, gguf::type_id::F32,
        norm, "F32", norm);
    const std::string gate = quantized ? bf16_values(kEmbd * kFf) : f16_values(kEmbd * kFf);
    add(g + "ffn_gate.weight", h + "mlp.gate_proj.weight", {kEmbd, kFf},
        quantized ? gguf::type_id::BF16 : gguf::type_id::F16, gate, quantized ? "BF16" : "F16",
        gate);
    const std::string up = f16_values(kEmbd * kFf);
    add(g + "ffn_up.weight", h + "mlp.up_proj.weight", {kEmbd, kFf}, gguf::type_id::F16, up, "F16",
        up);
    if (quantized) {
      // ffn_down's rows are kFf = 32 values: one Q8_0 block each.
      std::string stored, values;
      static constexpr float kHalf = 0.5f;
      for (uint64_t r = 0; r < kEmbd; ++r) {
        stored.push_back('\x00');  // scale 0.5: fp16 0x3800
        stored.push_back('\x38');
        for (int i = 0; i < 32; ++i) {
          const int q = static_cast<int>(rng() % 255) - 127;
          stored.push_back(static_cast<char>(static_cast<int8_t>(q)));
          const float v = static_cast<float>(q) * kHalf;
          values.append(reinterpret_cast<const char*>(&v), 4);
        }
      }
      add(g + "ffn_down.weight", h + "mlp.down_proj.weight", {kFf, kEmbd}, gguf::type_id::Q8_0,
          stored, "F32", values);
    } else {
      const std::string down = f16_values(kFf * kEmbd);
      add(g + "ffn_down.weight", h + "mlp.down_proj.weight", {kFf, kEmbd}, gguf::type_id::F16, down,
          "F16", down);
    }
  }
};

}  // namespace

std::string permute_rows(const std::string& w, uint64_t rows, uint64_t n_head) {
  const uint64_t row_bytes = w.size() / rows;
  const uint64_t half = rows / n_head / 2;
  std::string out(w.size(), '\0');
  // reshape (n_head, 2, half) then swapaxes(1, 2): element [h][t][j] moves to [h][j][t].
  for (uint64_t h = 0; h < n_head; ++h)
    for (uint64_t t = 0; t < 2; ++t)
      for (uint64_t j = 0; j < half; ++j) {
        const uint64_t from = (h * 2 + t) * half + j;
        const uint64_t to = (h * half + j) * 2 + t;
        out.replace(to * row_bytes, row_bytes, w, from * row_bytes, row_bytes);
      }
  return out;
}

HfTestModel hf_test_model(const std::string& arch, uint32_t n_head, uint32_t n_head_kv) {
  Builder b{arch, n_head, n_head_kv, {}};
  gguf::Writer& w = b.model.writer;
  using gguf::OwnedValue;
  w.add("general.architecture", OwnedValue::string(arch));
  w.add(arch + ".block_count", OwnedValue::u32(2));
  w.add(arch + ".context_length", OwnedValue::u32(128));
  w.add(arch + ".embedding_length", OwnedValue::u32(kEmbd));
  w.add(arch + ".feed_forward_length", OwnedValue::u32(kFf));
  w.add(arch + ".attention.head_count", OwnedValue::u32(n_head));
  w.add(arch + ".attention.head_count_kv", OwnedValue::u32(n_head_kv));
  w.add(arch + ".attention.layer_norm_rms_epsilon", OwnedValue::f32(1e-5f));
  w.add(arch + ".rope.freq_base", OwnedValue::f32(500000.0f));
  w.add(arch + ".rope.dimension_count", OwnedValue::u32(kHeadDim));
  std::vector<std::string> tokens;
  for (uint64_t i = 0; i < kVocab; ++i) tokens.push_back("t" + std::to_string(i));
  w.add("tokenizer.ggml.tokens", OwnedValue::string_array(tokens));
  w.add("tokenizer.ggml.bos_token_id", OwnedValue::u32(1));
  w.add("tokenizer.ggml.eos_token_id", OwnedValue::u32(2));

  const std::string embd = b.f16_values(kEmbd * kVocab);
  b.add("token_embd.weight", "model.embed_tokens.weight", {kEmbd, kVocab}, gguf::type_id::F16, embd,
        "F16", embd);
  b.layer(0, false);
  b.layer(1, true);
  const std::string norm = floats_bytes(b.f32_values(kEmbd));
  b.add("output_norm.weight", "model.norm.weight", {kEmbd}, gguf::type_id::F32, norm, "F32", norm);
  const std::string out = b.f16_values(kEmbd * kVocab);
  b.add("output.weight", "lm_head.weight", {kEmbd, kVocab}, gguf::type_id::F16, out, "F16", out);
  w.add_tensor("rope_freqs.weight", {8}, gguf::type_id::F32, floats_bytes(b.f32_values(8)));
  return std::move(b.model);
}

}  // namespace test_support
