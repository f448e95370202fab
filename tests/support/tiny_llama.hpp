// A tiny but real llama model for the interop tests: llama.cpp loads it and computes finite
// logits, so real clients can check what the mount serves. 2 layers, n_embd 256, 4 heads, 2 KV
// heads (grouped-query attention), n_ff 512, and the GPT-2 vocabulary of tests/data.
//
// The model is returned as data (metadata and tensors) rather than written at once, so a test can
// change a tensor's type or bytes (plant a NaN, say) before writing it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gguf/writer.hpp"

namespace test_support {

struct TinyLlamaTensor {
  std::string name;
  std::vector<uint64_t> ne;  // GGUF order: innermost first
  uint32_t type_id;
  std::string bytes;
};

struct TinyLlama {
  static constexpr uint32_t kEmbd = 256, kHeads = 4, kHeadsKv = 2, kFf = 512, kLayers = 2;
  std::vector<std::pair<std::string, gguf::OwnedValue>> metadata;
  std::vector<TinyLlamaTensor> tensors;

  TinyLlamaTensor& tensor(const std::string& name);
  gguf::Writer writer() const;
  void write(const std::filesystem::path& path) const;
  // Writes count shards named <prefix>-0000K-of-0000N.gguf into dir, as llama.cpp's gguf-split
  // does: all metadata in the first, split.no / split.count / split.tensors.count in each, the
  // tensors shared out in order. Returns the paths in order.
  std::vector<std::filesystem::path> write_split(const std::filesystem::path& dir,
                                                 const std::string& prefix, uint16_t count) const;
};

enum class TinyLlamaTypes {
  mixed,       // F32 norms; F16, Q8_0 and Q4_K matrices
  float_only,  // F32 norms; F16 matrices (what PyTorch comparisons want)
};

// vocab_path: a GGUF file with the tokenizer (tests/data/gpt2-vocab.gguf). Deterministic.
TinyLlama make_tiny_llama(const std::filesystem::path& vocab_path, TinyLlamaTypes types);

// Float helpers for tests that build tensors by hand: IEEE binary16 bits of v (round to nearest
// even; v must be within the finite fp16 range).
uint16_t fp16_bits(float v);

}  // namespace test_support
