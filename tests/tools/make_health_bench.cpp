// Writes the inputs of `scripts/bench health` into a folder:
//   health-a.gguf  a llama that llama.cpp loads (GPT-2 vocabulary, n_embd 4096, 7 layers, n_ff
//                  11008): Q4_K attention and gate/up matrices, Q6_K down and output matrices,
//                  F32 norms; 1.16 GB, every scale finite, so `gguffs check --data` passes
//   health-b.gguf  the same file with one byte of blk.3.ffn_down.weight changed (for diff vs cmp)
// usage: make_health_bench VOCAB.gguf OUTDIR
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "gguf/writer.hpp"
#include "tests/support/tiny_llama.hpp"

namespace {

namespace ids = gguf::type_id;
constexpr uint32_t kEmbd = 4096, kFf = 11008, kLayers = 7, kHeads = 32;

std::string random_bytes(uint64_t size, std::mt19937_64& rng) {
  std::string out(size, '\0');
  for (uint64_t i = 0; i + 8 <= size; i += 8) {
    const uint64_t v = rng();
    std::memcpy(out.data() + i, &v, 8);
  }
  return out;
}

void put16(std::string& b, uint64_t at, uint16_t v) {
  b[at] = static_cast<char>(v & 0xFF);
  b[at + 1] = static_cast<char>(v >> 8);
}

// Random quants with small finite scales: Q4_K d/dmin at 0/2, Q6_K d at 208.
std::string quantized(uint32_t type, uint64_t elements, std::mt19937_64& rng) {
  const uint32_t block_bytes = type == ids::Q4_K ? 144 : 210;
  const uint64_t blocks = elements / 256;
  std::string b = random_bytes(blocks * block_bytes, rng);
  for (uint64_t i = 0; i < blocks; ++i) {
    if (type == ids::Q4_K) {
      put16(b, i * 144, test_support::fp16_bits(0.0004f));
      put16(b, i * 144 + 2, test_support::fp16_bits(0.0002f));
    } else {
      put16(b, i * 210 + 208, test_support::fp16_bits(0.0001f));
    }
  }
  return b;
}

std::string norm(std::mt19937_64& rng) {
  std::string b(kEmbd * 4, '\0');
  std::normal_distribution<float> d(1.0f, 0.1f);
  for (uint32_t i = 0; i < kEmbd; ++i) {
    const float v = d(rng);
    std::memcpy(b.data() + 4 * i, &v, 4);
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_health_bench VOCAB.gguf OUTDIR\n");
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[2];
    std::filesystem::create_directories(dir);
    // The tokenizer and the llama keys of the tiny llama, with this model's sizes.
    const auto tiny =
        test_support::make_tiny_llama(argv[1], test_support::TinyLlamaTypes::float_only);
    gguf::Writer w;
    uint64_t n_vocab = 0;
    for (const auto& [key, value] : tiny.metadata) {
      if (key == "llama.embedding_length")
        w.add(key, gguf::OwnedValue::u32(kEmbd));
      else if (key == "llama.block_count")
        w.add(key, gguf::OwnedValue::u32(kLayers));
      else if (key == "llama.feed_forward_length")
        w.add(key, gguf::OwnedValue::u32(kFf));
      else if (key == "llama.attention.head_count" || key == "llama.attention.head_count_kv")
        w.add(key, gguf::OwnedValue::u32(kHeads));
      else if (key == "general.file_type")
        w.add(key, gguf::OwnedValue::u32(15));  // MOSTLY_Q4_K_M
      else
        w.add(key, value);
      if (key == "tokenizer.ggml.tokens") n_vocab = value.element_count();
    }
    std::mt19937_64 rng(15);
    w.add_tensor("token_embd.weight", {kEmbd, n_vocab}, ids::Q4_K,
                 quantized(ids::Q4_K, kEmbd * n_vocab, rng));
    for (uint32_t l = 0; l < kLayers; ++l) {
      const std::string p = "blk." + std::to_string(l) + ".";
      w.add_tensor(p + "attn_norm.weight", {kEmbd}, ids::F32, norm(rng));
      for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_output"})
        w.add_tensor(p + m + ".weight", {kEmbd, kEmbd}, ids::Q4_K,
                     quantized(ids::Q4_K, uint64_t{kEmbd} * kEmbd, rng));
      w.add_tensor(p + "ffn_norm.weight", {kEmbd}, ids::F32, norm(rng));
      w.add_tensor(p + "ffn_gate.weight", {kEmbd, kFf}, ids::Q4_K,
                   quantized(ids::Q4_K, uint64_t{kEmbd} * kFf, rng));
      w.add_tensor(p + "ffn_up.weight", {kEmbd, kFf}, ids::Q4_K,
                   quantized(ids::Q4_K, uint64_t{kEmbd} * kFf, rng));
      w.add_tensor(p + "ffn_down.weight", {kFf, kEmbd}, ids::Q6_K,
                   quantized(ids::Q6_K, uint64_t{kFf} * kEmbd, rng));
    }
    w.add_tensor("output_norm.weight", {kEmbd}, ids::F32, norm(rng));
    w.add_tensor("output.weight", {kEmbd, n_vocab}, ids::Q6_K,
                 quantized(ids::Q6_K, kEmbd * n_vocab, rng));
    const auto a = dir / "health-a.gguf", b = dir / "health-b.gguf";
    w.write_file(a.string());
    // blk.3.ffn_down.weight is tensor 1 + 3 * 9 + 8; change a quant byte in its middle.
    const uint64_t down_offset = w.data_offset() + w.tensor_offset(1 + 3 * 9 + 8) + 1000000;
    std::filesystem::copy_file(a, b, std::filesystem::copy_options::overwrite_existing);
    const int fd = open(b.c_str(), O_RDWR | O_CLOEXEC);
    unsigned char byte = 0;
    if (fd < 0 || pread(fd, &byte, 1, static_cast<off_t>(down_offset)) != 1)
      throw std::runtime_error("cannot read " + b.string());
    byte ^= 0x10;
    if (pwrite(fd, &byte, 1, static_cast<off_t>(down_offset)) != 1)
      throw std::runtime_error("cannot write " + b.string());
    close(fd);
    std::printf("%s %s: %llu bytes\n", a.c_str(), b.c_str(),
                static_cast<unsigned long long>(w.file_size()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_health_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
