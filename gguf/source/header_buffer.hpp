// The bytes in front of the tensor data, read once with pread into one contiguous buffer.
//
// The buffer is an anonymous mapping reserved at the file's size (address space only, with
// MAP_NORESERVE) and filled as the parser advances, so it never moves, is never copied while
// growing, and holds only what was read: peak memory is the metadata itself. Values keep
// string_views into it; the Model owns it once parsing is done.
//
// A source that holds its first bytes in memory (ByteSource::lend_prefix: a merged or edited
// header) is read in place: no mapping, no copy, and the Model keeps the source's owner.
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

  // Hands the bytes to the caller (the Model): the mapping, which it must munmap(ptr, capacity)
  // unless capacity is 0, and what keeps lent bytes alive.
  void release(const uint8_t** ptr, size_t* capacity, std::shared_ptr<const void>* lender);

 private:
  void reserve_mapping();

  const ByteSource& source_;
  uint64_t file_size_;
  const uint8_t* base_ = nullptr;
  uint8_t* mapping_ = nullptr;  // owned; null while reading lent bytes in place
  size_t capacity_ = 0;
  uint64_t loaded_ = 0;
  std::shared_ptr<const void> lender_;  // keeps lent bytes alive (views may point there)
};

}  // namespace gguf
