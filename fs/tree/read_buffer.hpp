// What a read of a file produces: an ordered list of pieces, each either bytes in memory or a
// range of an open file. The FUSE layer turns file ranges into splice replies (no copy through
// the daemon); `gguffs cat` and the tests resolve them with pread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gguffs {

struct ReadPiece {
  const uint8_t* memory = nullptr;  // memory piece: the bytes (valid while the buffer lives)
  int fd = -1;                      // file piece: the descriptor ...
  uint64_t file_offset = 0;         // ... and the absolute offset in it
  size_t size = 0;

  bool is_file() const { return memory == nullptr; }
};

class ReadBuffer {
 public:
  // scratch_capacity bounds the bytes copied into scratch() pieces; it is allocated on first use
  // and never moves, so earlier pieces stay valid.
  explicit ReadBuffer(size_t scratch_capacity) : capacity_(scratch_capacity) {}
  ReadBuffer(const ReadBuffer&) = delete;
  ReadBuffer& operator=(const ReadBuffer&) = delete;

  // Appends a memory piece that the caller guarantees outlives this buffer (cached text).
  void add_memory(const void* data, size_t size);
  // Appends a memory piece kept alive by owner until this buffer goes (a lent cache block).
  void add_lent(std::shared_ptr<const void> owner, const void* data, size_t size);
  // Appends a file piece.
  void add_file(int fd, uint64_t file_offset, size_t size);
  // Appends a memory piece of size bytes in the owned scratch space and returns it to be filled.
  // Throws std::length_error beyond the capacity.
  uint8_t* add_scratch(size_t size);

  const std::vector<ReadPiece>& pieces() const { return pieces_; }
  size_t size() const { return size_; }

  // All the bytes, with file pieces read by pread (throws std::system_error on failure).
  std::string to_string() const;
  // The same into dst (size() bytes).
  void copy_to(uint8_t* dst) const;

 private:
  size_t capacity_;
  size_t used_ = 0;
  size_t size_ = 0;
  std::unique_ptr<uint8_t[]> scratch_;
  std::vector<ReadPiece> pieces_;
  std::vector<std::shared_ptr<const void>> owners_;
};

}  // namespace gguffs
