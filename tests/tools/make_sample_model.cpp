// Writes the demo's sample model: a one-layer llama-style model (Q4_K, Q6_K, Q5_0 and F32
// tensors, the way llama-quantize mixes them for Q4_K_M) with the real GPT-2 tokenizer taken
// from the fixture and a chat template.
//   make_sample_model GPT2_VOCAB.gguf OUT.gguf
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gguf/errors.hpp"
#include "gguf/parser.hpp"
#include "gguf/writer.hpp"

namespace {

using gguf::OwnedValue;

// Random block bytes whose fp16 scale fields hold small finite values, so decoded weights look
// like weights. scale_offsets lists where each block keeps an fp16 scale.
std::string quantized(std::mt19937& rng, uint64_t bytes, uint32_t block_bytes,
                      const std::vector<uint32_t>& scale_offsets) {
  std::string out(bytes, '\0');
  for (auto& c : out) c = static_cast<char>(rng() & 0xFF);
  for (uint64_t b = 0; b < bytes; b += block_bytes) {
    for (uint32_t off : scale_offsets) {
      uint16_t h = static_cast<uint16_t>(0x1C00 + (rng() & 0x3FF));  // about 0.004 .. 0.008
      out[b + off] = static_cast<char>(h & 0xFF);
      out[b + off + 1] = static_cast<char>(h >> 8);
    }
  }
  return out;
}

std::string f32_values(std::mt19937& rng, uint64_t n, float center, float spread) {
  std::normal_distribution<float> dist(center, spread);
  std::string out(n * 4, '\0');
  for (uint64_t i = 0; i < n; ++i) {
    float v = dist(rng);
    std::memcpy(out.data() + i * 4, &v, 4);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_sample_model GPT2_VOCAB.gguf OUT.gguf\n");
    return 2;
  }
  try {
    auto vocab = gguf::parse_file(argv[1]);
    const uint32_t n_embd = 256, n_ff = 704, n_head = 8, n_head_kv = 2;
    const uint64_t n_vocab = vocab->find("tokenizer.ggml.tokens")->value.array.count;

    gguf::Writer w;
    w.add("general.architecture", OwnedValue::string("llama"));
    w.add("general.name", OwnedValue::string("gguffs sample llama"));
    w.add("general.file_type", OwnedValue::u32(15));  // MOSTLY_Q4_K_M
    w.add("general.quantization_version", OwnedValue::u32(2));
    w.add("llama.context_length", OwnedValue::u32(2048));
    w.add("llama.embedding_length", OwnedValue::u32(n_embd));
    w.add("llama.block_count", OwnedValue::u32(1));
    w.add("llama.feed_forward_length", OwnedValue::u32(n_ff));
    w.add("llama.attention.head_count", OwnedValue::u32(n_head));
    w.add("llama.attention.head_count_kv", OwnedValue::u32(n_head_kv));
    w.add("llama.rope.freq_base", OwnedValue::f32(500000.0f));
    w.add("llama.attention.layer_norm_rms_epsilon", OwnedValue::f32(1e-5f));
    w.add("llama.vocab_size", OwnedValue::u32(static_cast<uint32_t>(n_vocab)));
    for (const auto& key : {"tokenizer.ggml.model", "tokenizer.ggml.pre"}) {
      w.add(key, OwnedValue::string(std::string(vocab->find(key)->value.str)));
    }
    for (const auto& key :
         {"tokenizer.ggml.tokens", "tokenizer.ggml.token_type", "tokenizer.ggml.merges"}) {
      w.add(key, OwnedValue::copy_of(vocab->find(key)->value));
    }
    for (const auto& key : {"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"}) {
      w.add(key, OwnedValue::u32(static_cast<uint32_t>(vocab->find(key)->value.bits)));
    }
    w.add("tokenizer.chat_template",
          OwnedValue::string("{% for message in messages %}<|{{ message['role'] }}|>\n"
                             "{{ message['content'] }}<|end|>\n{% endfor %}"
                             "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"));

    std::mt19937 rng(20261130);
    using namespace gguf::type_id;
    auto q4k = [&](uint64_t elements) { return quantized(rng, elements / 256 * 144, 144, {0, 2}); };
    auto q6k = [&](uint64_t elements) { return quantized(rng, elements / 256 * 210, 210, {208}); };
    auto q50 = [&](uint64_t elements) { return quantized(rng, elements / 32 * 22, 22, {0}); };
    w.add_tensor("token_embd.weight", {n_embd, n_vocab}, Q4_K, q4k(n_embd * n_vocab));
    w.add_tensor("blk.0.attn_norm.weight", {n_embd}, F32, f32_values(rng, n_embd, 1.0f, 0.05f));
    w.add_tensor("blk.0.attn_q.weight", {n_embd, n_embd}, Q4_K, q4k(n_embd * n_embd));
    w.add_tensor("blk.0.attn_k.weight", {n_embd, 64}, Q4_K, q4k(n_embd * 64));
    w.add_tensor("blk.0.attn_v.weight", {n_embd, 64}, Q6_K, q6k(n_embd * 64));
    w.add_tensor("blk.0.attn_output.weight", {n_embd, n_embd}, Q4_K, q4k(n_embd * n_embd));
    w.add_tensor("blk.0.ffn_norm.weight", {n_embd}, F32, f32_values(rng, n_embd, 1.0f, 0.05f));
    w.add_tensor("blk.0.ffn_gate.weight", {n_embd, n_ff}, Q4_K, q4k(n_embd * n_ff));
    w.add_tensor("blk.0.ffn_up.weight", {n_embd, n_ff}, Q4_K, q4k(n_embd * n_ff));
    w.add_tensor("blk.0.ffn_down.weight", {n_ff, n_embd}, Q5_0, q50(n_ff * n_embd));
    w.add_tensor("output_norm.weight", {n_embd}, F32, f32_values(rng, n_embd, 1.0f, 0.05f));
    w.add_tensor("output.weight", {n_embd, n_vocab}, Q6_K, q6k(n_embd * n_vocab));
    w.write_file(argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_sample_model: %s\n", e.what());
    return 1;
  }
  return 0;
}
