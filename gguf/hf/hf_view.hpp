// What the mount's hf/ directory shows for a model (issue 14), decided once from the parsed
// model: which tensors get a Hugging Face name, in what dtype and row order, where each sits in
// hf/model.safetensors, and the transformers config.json. No bytes are read here; the
// filesystem (fs/tree/hf_tree.cpp) turns the plan into files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/hf/hf_names.hpp"
#include "gguf/model.hpp"
#include "gguf/split.hpp"

namespace gguf::hf {

enum class Dtype : uint8_t { F32, F16, BF16 };
std::string_view dtype_name(Dtype d);  // "F32", "F16", "BF16" (safetensors' names)
size_t dtype_size(Dtype d);
std::optional<Dtype> parse_dtype(std::string_view name);  // "F32", "F16", "BF16"

struct HfTensor {
  size_t shard = 0;                    // the shard holding the GGUF tensor
  const TensorInfo* tensor = nullptr;  // the GGUF tensor (owned by the shard's model)
  std::string name;                    // the Hugging Face name
  Dtype dtype = Dtype::F32;
  // true: data is the stored bytes (F32, F16, BF16 of a little-endian file); false: the values
  // decoded to float32 by ggml's rules, then converted to dtype.
  bool stored_bytes = false;
  uint64_t unpermute_heads = 0;  // llama's attn_q / attn_k: the heads to un-permute with; 0: none
  std::vector<uint64_t> shape;   // outermost first (PyTorch order)
  uint64_t rows = 1;             // shape[0]: the dimension the un-permute reorders
  uint64_t offset = 0;           // where its data starts in model.safetensors' byte buffer

  uint64_t bytes() const { return tensor->elements * dtype_size(dtype); }
};

struct HfView {
  const Architecture* arch = nullptr;  // nullptr: no Hugging Face names for this architecture
  std::vector<HfTensor> tensors;       // in safetensors data order (see plan_hf_view)
  // The Hugging Face name of every GGUF tensor of the set, in set order ("" when it has none).
  std::vector<std::string> hf_names;
  std::string unmapped;                    // hf/unmapped.txt: one line per thing left out
  std::optional<std::string> config_json;  // hf/config.json, unless a required key is missing
  uint64_t data_bytes = 0;                 // the size of model.safetensors' byte buffer
};

// Plans the view. quantized_to: the dtype of tensors that are not stored as F32/F16/BF16.
// Tensors whose size is a multiple of 8 bytes come first in the data, then the others (4-byte
// then 2-byte dtypes), so every tensor starts at a multiple of its element size and, in any
// real model, of 8 bytes; safetensors allows no gaps between tensors.
HfView plan_hf_view(const ModelSet& models, Dtype quantized_to);

// The start of hf/model.safetensors: the 8-byte little-endian header length, then the JSON
// header ("__metadata__": {"format": "pt"}, then every tensor's dtype, shape and data_offsets in
// data order) padded with spaces so that the data starts at a multiple of 8 and, when the first
// tensor is spliced from the model file, at its offset within a 4 KiB page there.
std::string safetensors_header(const HfView& view);

// hf/<name>/info: "hf_name:", "gguf_name:", "dtype:", "shape:" (outermost first), "elements:",
// "bytes:", "values:" (stored bytes, or decoded from TYPE), "rows:" (as stored, or un-permuted),
// "data_offsets:" (in model.safetensors' byte buffer), "npy_dtype:".
std::string render_hf_tensor_info(const HfTensor& tensor);

// The transformers config of a model whose metadata is in model (the first shard); throws
// std::runtime_error("missing key llama.embedding_length") when a required key is absent.
std::string render_config_json(const Model& model, const Architecture& arch, bool has_lm_head,
                               std::string_view torch_dtype);

}  // namespace gguf::hf
