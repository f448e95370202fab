// `gguffs check --data`: every tensor of a model (all shards of a split model) validated as
// llama.cpp's loader does with check_tensors, on every core. Each tensor is read once, in chunks
// of whole blocks, straight from the model file (pread), and its chunks are scanned in parallel.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gguf/split.hpp"
#include "gguf/validate/validate.hpp"

namespace gguf {

struct TensorCheck {
  const Model* shard = nullptr;  // the file holding the tensor
  const TensorInfo* tensor = nullptr;
  bool incomplete = false;  // the file lacks some of its bytes: llama.cpp refuses the model
  bool big_endian = false;  // not checked (llama.cpp reads only little-endian files)
  BlockScan scan;
  DataVerdict verdict;

  bool refused() const { return incomplete || !verdict.valid(); }
  // Where block `block` starts in the shard's file.
  uint64_t block_file_offset(uint64_t block) const;
};

struct ModelCheck {
  std::vector<TensorCheck> tensors;  // in shard order, then file order
  uint64_t bytes_checked = 0;
  size_t refused_count() const;
};

// Called from the calling thread about every interval while the check runs (and once at the
// end) with the bytes checked so far and the total.
using CheckProgress = std::function<void(uint64_t done, uint64_t total)>;

// threads 0: one per core. Throws FormatError(io) when a file cannot be read. The result points
// into set's models: keep set alive while using it.
ModelCheck check_model_data(const ModelSet& set, unsigned threads = 0,
                            const CheckProgress& progress = {});

// The report `gguffs check --data` prints: one line per refused tensor, in llama.cpp's words,
// naming the first bad block, its byte offset in its file and its type; one "warning:" line per
// suspicious tensor (all zeros, NaN NVFP4 scales); then one line of totals.
std::string render_model_check(const ModelCheck& check);

}  // namespace gguf
