// hf/<name>/data of llama's attn_q / attn_k: another content's rows in Hugging Face order, the
// inverse of llama.cpp's Q/K permute (gguf/hf/unpermute.hpp). Each output row is one contiguous
// run of the inner content, so a read is a few row reads, gathered into one memory piece (one
// pread per row when the inner content is a byte range of the model file).
#pragma once

#include <memory>

#include "fs/tree/content.hpp"

namespace gguffs {

class UnpermutedRows final : public FileContent {
 public:
  // inner holds rows equal rows in stored order; gguf::hf::can_unpermute(rows, n_head) must hold.
  UnpermutedRows(std::shared_ptr<const FileContent> inner, uint64_t rows, uint64_t n_head);

  uint64_t size() const override { return inner_->size(); }
  void read(uint64_t off, size_t len, ReadBuffer& out) const override;

 private:
  std::shared_ptr<const FileContent> inner_;
  uint64_t rows_;
  uint64_t n_head_;
  uint64_t row_bytes_;
};

}  // namespace gguffs
