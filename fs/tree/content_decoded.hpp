// data.f32: a tensor's values as little-endian float32, decoded on demand. A read of
// [off, off + len) reads and decodes only the blocks that cover it, so random access costs the
// same per byte as sequential access and memory stays bounded per request.
#pragma once

#include <memory>

#include "fs/tree/content.hpp"
#include "gguf/model.hpp"
#include "gguf/source/source.hpp"

namespace gguffs {

class DecodedFloats final : public FileContent {
 public:
  // tensor must be decodable (gguf::decoded_view(...).available); big_endian: the model's byte
  // order (only plain types are decodable then). Reads of blocks the file lacks fail with EIO.
  DecodedFloats(std::shared_ptr<const gguf::ByteSource> source, const gguf::TensorInfo& tensor,
                bool big_endian);

  uint64_t size() const override { return elements_ * sizeof(float); }
  void read(uint64_t off, size_t len, ReadBuffer& out) const override;

 private:
  // Decodes blocks [first, first + count) into dst (count * block_size floats, any alignment).
  void decode(uint64_t first, uint64_t count, uint8_t* dst) const;

  std::shared_ptr<const gguf::ByteSource> source_;
  uint64_t file_offset_;
  uint64_t present_;  // stored bytes the file really holds
  uint64_t elements_;
  uint32_t type_id_;
  uint32_t block_size_;   // elements per block
  uint32_t block_bytes_;  // stored bytes per block
  bool big_endian_;
};

}  // namespace gguffs
