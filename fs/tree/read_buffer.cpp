#include "fs/tree/read_buffer.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace gguffs {

void ReadBuffer::add_memory(const void* data, size_t size) {
  if (size == 0) return;
  pieces_.push_back({static_cast<const uint8_t*>(data), -1, 0, size});
  size_ += size;
}

void ReadBuffer::add_lent(std::shared_ptr<const void> owner, const void* data, size_t size) {
  if (size == 0) return;
  owners_.push_back(std::move(owner));
  add_memory(data, size);
}

void ReadBuffer::add_file(int fd, uint64_t file_offset, size_t size) {
  if (size == 0) return;
  pieces_.push_back({nullptr, fd, file_offset, size});
  size_ += size;
}

uint8_t* ReadBuffer::add_scratch(size_t size) {
  if (size > capacity_ - used_) throw std::length_error("read buffer scratch space exceeded");
  if (!scratch_) scratch_ = std::make_unique_for_overwrite<uint8_t[]>(capacity_);
  uint8_t* p = scratch_.get() + used_;
  used_ += size;
  if (size != 0) pieces_.push_back({p, -1, 0, size});
  size_ += size;
  return p;
}

std::string ReadBuffer::to_string() const {
  std::string out(size_, '\0');
  copy_to(reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

void ReadBuffer::copy_to(uint8_t* dst) const {
  for (const ReadPiece& piece : pieces_) {
    if (!piece.is_file()) {
      std::memcpy(dst, piece.memory, piece.size);
      dst += piece.size;
      continue;
    }
    size_t done = 0;
    while (done < piece.size) {
      const ssize_t n = pread(piece.fd, dst + done, piece.size - done,
                              static_cast<off_t>(piece.file_offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw std::system_error(errno, std::generic_category(), "pread");
      if (n == 0) throw std::system_error(EIO, std::generic_category(), "file shrank");
      done += static_cast<size_t>(n);
    }
    dst += piece.size;
  }
}

}  // namespace gguffs
