#include "gguf/source/header_buffer.hpp"

#include <sys/mman.h>

#include <fmt/format.h>
#include <algorithm>
#include <cstring>

#include "gguf/errors.hpp"

namespace gguf {

namespace {
// The smallest reservation tried when the system refuses address space.
constexpr uint64_t kReadStep = 2 << 20;
// Metadata beyond this is refused rather than reserved (a 16 GiB tokenizer is not a model).
constexpr uint64_t kMaxReservation = uint64_t{16} << 30;
}  // namespace

HeaderBuffer::HeaderBuffer(const ByteSource& source) : source_(source), file_size_(source.size()) {
  const uint8_t* lent = nullptr;
  size_t lent_size = 0;
  lender_ = source.lend_prefix(&lent, &lent_size);
  if (lender_ && lent_size != 0) {
    base_ = lent;
    loaded_ = std::min<uint64_t>(lent_size, file_size_);
    return;
  }
  lender_.reset();
  reserve_mapping();
}

void HeaderBuffer::reserve_mapping() {
  uint64_t want = std::max<uint64_t>(std::min(file_size_, kMaxReservation), 1);
  // Shrink the reservation if the system refuses so much address space.
  while (true) {
    void* p = ::mmap(nullptr, want, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      mapping_ = static_cast<uint8_t*>(p);
      capacity_ = want;
      break;
    }
    if (want <= kReadStep) throw std::bad_alloc();
    want /= 2;
  }
  // Bytes read in place so far move along (views into them stay valid: lender_ is kept).
  if (loaded_ != 0) std::memcpy(mapping_, base_, std::min<uint64_t>(loaded_, capacity_));
  loaded_ = std::min<uint64_t>(loaded_, capacity_);
  base_ = mapping_;
}

HeaderBuffer::~HeaderBuffer() {
  if (mapping_) ::munmap(mapping_, capacity_);
}

bool HeaderBuffer::ensure(uint64_t end) {
  if (end <= loaded_) return true;
  if (end > file_size_) return false;
  if (!mapping_) reserve_mapping();  // past the lent bytes: read on into a mapping
  if (end > capacity_) {
    throw FormatError(FormatError::Kind::malformed, source_.name(), loaded_,
                      fmt::format("metadata larger than {} bytes is not supported", capacity_));
  }
  // Read on to what the source gives cheaply (2 MiB of a file: few system calls, and little
  // tensor data read by accident), but never less than end.
  uint64_t target =
      std::min<uint64_t>({std::max(end, source_.cheap_end(loaded_)), file_size_, capacity_});
  size_t got = source_.read_at(loaded_, mapping_ + loaded_, target - loaded_);
  loaded_ += got;
  if (loaded_ < end) {
    // The file shrank since it was opened.
    throw FormatError(FormatError::Kind::io, source_.name(), loaded_,
                      "the file ended early while reading (was it truncated?)");
  }
  return true;
}

void HeaderBuffer::release(const uint8_t** ptr, size_t* capacity,
                           std::shared_ptr<const void>* lender) {
  *ptr = base_;
  *capacity = mapping_ ? capacity_ : 0;
  *lender = std::move(lender_);
  base_ = nullptr;
  mapping_ = nullptr;
  capacity_ = 0;
}

}  // namespace gguf
