// `gguffs diff A B`: what differs between two models (single files or split models): metadata
// keys added, removed or changed, tensors added, removed, of another type or shape, or with
// other bytes. split.* keys are ignored (they describe the files, not the model), so a split
// model and its merged form are the same. Only tensors whose type, shape and size agree have
// their bytes compared, in parallel, each file read once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gguf/split.hpp"

namespace gguf {

struct KeyChange {
  enum class Kind { added, removed, changed };
  Kind kind = Kind::changed;
  std::string key;
  // The value in A and in B (empty when absent): "UINT32 4096", "STRING tiny-llama", and for
  // long values a description: "ARRAY of 50257 STRING, 452938 bytes, sha256 1f2e3d4c5b6a7988".
  std::string a, b;
};

struct TensorChange {
  enum class Kind { added, removed, type_or_shape, bytes };
  Kind kind = Kind::bytes;
  std::string name;
  std::string a, b;               // "Q4_K, ne 256 256" in A and in B (empty when absent)
  uint64_t first_difference = 0;  // Kind::bytes: the first differing byte within the tensor
  uint64_t bytes = 0;             // Kind::bytes: the tensor's size
};

struct ModelDiff {
  std::vector<KeyChange> keys;        // A's key order, then keys only B has
  std::vector<TensorChange> tensors;  // A's tensor order, then tensors only B has
  uint64_t keys_same = 0, tensors_same = 0;
  uint64_t bytes_compared = 0;
  bool same() const { return keys.empty() && tensors.empty(); }
};

// threads 0: one per core. Throws FormatError(io) when a file cannot be read.
ModelDiff diff_models(const ModelSet& a, const ModelSet& b, unsigned threads = 0);

// One line per difference ("+ key ...", "- tensor ...", "~ tensor ...: bytes differ ..."), then
// the one-line total.
std::string render_diff_text(const ModelDiff& diff);
// The same as one JSON object: {"same":..., "keys":[...], "tensors":[...], "total":{...}}.
std::string render_diff_json(const ModelDiff& diff);

}  // namespace gguf
