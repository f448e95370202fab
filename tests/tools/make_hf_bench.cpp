// Writes the inputs of `scripts/bench hf` into a folder: two llamas shaped like TinyLlama-1.1B
// (n_embd 2048, 32 heads, 4 KV heads, n_ff 5632, vocabulary 32,000) cut to 2 layers:
//   hf-f16.gguf    F32 norms, F16 matrices (about 440 MB)
//   hf-q4_k.gguf   F32 norms, Q4_K matrices (about 125 MB; 880 MB as float32)
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "gguf/writer.hpp"

namespace {

constexpr uint64_t kEmbd = 2048, kHeads = 32, kKvHeads = 4, kFf = 5632, kVocab = 32000;
constexpr uint64_t kLayers = 2, kHeadDim = kEmbd / kHeads;

// F16 values in [-1, 1) (finite; the readers do not care, numpy users might).
std::string f16_values(uint64_t n, std::mt19937& rng) {
  std::string out(n * 2, '\0');
  for (uint64_t i = 0; i < n; ++i) {
    const auto h = static_cast<uint16_t>((rng() & 0x83ff) | 0x3800);  // +-[0.5, 1)
    out[2 * i] = static_cast<char>(h & 0xff);
    out[2 * i + 1] = static_cast<char>(h >> 8);
  }
  return out;
}

// Q4_K blocks with small finite fp16 d and dmin, random quants and scales.
std::string q4_k_values(uint64_t n, std::mt19937& rng) {
  std::string out(n / 256 * 144, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  for (uint64_t b = 0; b < n / 256; ++b) {
    out[b * 144 + 0] = 0x00;
    out[b * 144 + 1] = 0x20;  // d = fp16 0x2000
    out[b * 144 + 2] = 0x00;
    out[b * 144 + 3] = 0x1C;  // dmin = fp16 0x1C00
  }
  return out;
}

void write_model(const std::filesystem::path& path, bool quantized) {
  std::mt19937 rng(quantized ? 4 : 16);
  gguf::Writer w;
  using gguf::OwnedValue;
  w.add("general.architecture", OwnedValue::string("llama"));
  w.add("llama.block_count", OwnedValue::u32(kLayers));
  w.add("llama.context_length", OwnedValue::u32(2048));
  w.add("llama.embedding_length", OwnedValue::u32(kEmbd));
  w.add("llama.feed_forward_length", OwnedValue::u32(kFf));
  w.add("llama.attention.head_count", OwnedValue::u32(kHeads));
  w.add("llama.attention.head_count_kv", OwnedValue::u32(kKvHeads));
  w.add("llama.attention.layer_norm_rms_epsilon", OwnedValue::f32(1e-5f));
  w.add("llama.rope.freq_base", OwnedValue::f32(10000.0f));
  w.add("llama.vocab_size", OwnedValue::u32(kVocab));
  auto matrix = [&](const std::string& name, uint64_t cols, uint64_t rows) {
    if (quantized)
      w.add_tensor(name, {cols, rows}, gguf::type_id::Q4_K, q4_k_values(cols * rows, rng));
    else
      w.add_tensor(name, {cols, rows}, gguf::type_id::F16, f16_values(cols * rows, rng));
  };
  auto norm = [&](const std::string& name) {
    std::string ones(kEmbd * 4, '\0');
    for (uint64_t i = 0; i < kEmbd; ++i) std::memcpy(ones.data() + 4 * i, "\x00\x00\x80\x3f", 4);
    w.add_tensor(name, {kEmbd}, gguf::type_id::F32, ones);
  };
  matrix("token_embd.weight", kEmbd, kVocab);
  for (uint64_t l = 0; l < kLayers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    norm(b + "attn_norm.weight");
    matrix(b + "attn_q.weight", kEmbd, kHeads * kHeadDim);
    matrix(b + "attn_k.weight", kEmbd, kKvHeads * kHeadDim);
    matrix(b + "attn_v.weight", kEmbd, kKvHeads * kHeadDim);
    matrix(b + "attn_output.weight", kEmbd, kEmbd);
    norm(b + "ffn_norm.weight");
    matrix(b + "ffn_gate.weight", kEmbd, kFf);
    matrix(b + "ffn_up.weight", kEmbd, kFf);
    matrix(b + "ffn_down.weight", kFf, kEmbd);
  }
  norm("output_norm.weight");
  matrix("output.weight", kEmbd, kVocab);
  w.write_file(path.string());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_hf_bench OUTDIR\n");
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    write_model(dir / "hf-f16.gguf", false);
    write_model(dir / "hf-q4_k.gguf", true);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_hf_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
