// Models for the Hugging Face view (issue 14): known Hugging Face matrices written into a GGUF
// file the way llama.cpp's converter writes them, so a test can check that hf/ gives them back.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gguf/writer.hpp"

namespace test_support {

struct HfTestTensor {
  std::string dtype;            // what hf/<name>/info and the safetensors header must say
  std::vector<uint64_t> shape;  // PyTorch order
  std::string data;             // hf/<name>/data, exactly: the original Hugging Face values
};

struct HfTestModel {
  gguf::Writer writer;
  std::map<std::string, HfTestTensor> tensors;  // by Hugging Face name
};

// The rows of w (rows rows of row_bytes bytes) reordered as llama.cpp's
// LlamaModel.permute(w, n_head, n_head) does: w.reshape(n_head, 2, half, ...).swapaxes(1, 2).
std::string permute_rows(const std::string& w, uint64_t rows, uint64_t n_head);

// A 2-layer model of architecture arch ("llama", "qwen2" or "qwen3"), n_embd 64, head_count
// n_head, head_count_kv n_head_kv (head_dim 16), n_ff 32, vocabulary 8 tokens, with:
//   token_embd F16 [64, 8]; output_norm F32 [64]; output F16 [64, 8];
//   blk.0: attn_norm F32, attn_q/attn_k/attn_v/attn_output F16, attn_q/attn_k bias F32,
//          ffn_norm F32, ffn_gate/ffn_up/ffn_down F16;
//   blk.1: the same with attn_q, attn_k, attn_v, ffn_down in Q8_0 (values that Q8_0 holds
//          exactly: small integers times 0.5, 0.25, 0.125 or 2) and ffn_gate in BF16;
//   rope_freqs.weight F32 [8], which has no Hugging Face name.
// For llama, attn_q (weights and biases) is permuted with n_head and attn_k with n_head_kv, as
// the converter does; qwen2/qwen3 keep them as they are. The expected hf/ data of every mapped
// tensor (quantized ones as float32) is in tensors.
HfTestModel hf_test_model(const std::string& arch, uint32_t n_head, uint32_t n_head_kv);

}  // namespace test_support
