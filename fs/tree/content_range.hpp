// A byte range of the model file: a tensor's data, or the whole file as model.gguf.
// File sources are served as file pieces (spliced by FUSE); memory sources are copied.
#pragma once

#include <memory>

#include "fs/tree/content.hpp"
#include "gguf/source/source.hpp"

namespace gguffs {

class ByteRange final : public FileContent {
 public:
  // size: the range's nominal size; present: how many of its first bytes the source really has
  // (less than size for a truncated download). Reads that reach past present fail with EIO.
  ByteRange(std::shared_ptr<const gguf::ByteSource> source, uint64_t offset, uint64_t size,
            uint64_t present);

  uint64_t size() const override { return size_; }
  void read(uint64_t off, size_t len, ReadBuffer& out) const override;
  uint64_t offset() const { return offset_; }

 private:
  std::shared_ptr<const gguf::ByteSource> source_;
  uint64_t offset_;
  uint64_t size_;
  uint64_t present_;
};

}  // namespace gguffs
