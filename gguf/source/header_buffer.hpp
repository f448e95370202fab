// The bytes in front of the tensor data, read once with pread into one contiguous buffer.
//
// The buffer is an anonymous mapping reserved at the file's size (address space only, with
// MAP_NORESERVE) and filled as the parser advances, so it never moves, is never copied while
// growing, and holds only what was read: peak memory is the metadata itself. Values keep
// string_views into it; the Model owns it once parsing is done.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "gguf/source/source.hpp"

namespace gguf {

class HeaderBuffer {
 public:
  explicit HeaderBuffer(const ByteSource& source);
  ~HeaderBuffer();
  HeaderBuffer(const HeaderBuffer&) = delete;
  HeaderBuffer& operator=(const HeaderBuffer&) = delete;

  // Makes [0, end) readable; false when end is past the end of the file. Throws on I/O errors.
  bool ensure(uint64_t end);
  const uint8_t* data() const { return base_; }
  uint64_t file_size() const { return file_size_; }

  // Hands the mapping to the caller (the Model), which must munmap(ptr, capacity).
  void release(const uint8_t** ptr, size_t* capacity);

 private:
  const ByteSource& source_;
  uint64_t file_size_;
  uint8_t* base_ = nullptr;
  size_t capacity_ = 0;
  uint64_t loaded_ = 0;
};

}  // namespace gguf
