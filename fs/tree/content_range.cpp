#include "fs/tree/content_range.hpp"

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace gguffs {

ByteRange::ByteRange(std::shared_ptr<const gguf::ByteSource> source, uint64_t offset, uint64_t size,
                     uint64_t present)
    : source_(std::move(source)), offset_(offset), size_(size), present_(std::min(present, size)) {}

void ByteRange::read(uint64_t off, size_t len, ReadBuffer& out) const {
  const size_t n = clamp(off, len, size_);
  if (n == 0) return;
  // A short reply would make the kernel believe the file ends early; fail the request instead.
  if (off + n > present_)
    throw std::system_error(EIO, std::generic_category(), "tensor data missing from the file");
  const uint64_t at = offset_ + off;
  if (const int fd = source_->fd(); fd >= 0) {
    out.add_file(fd, at, n);
    return;
  }
  // A source that holds the bytes in memory (a remote file's cache) lends them: no copy.
  size_t done = 0;
  while (done < n) {
    const uint8_t* data = nullptr;
    size_t got = 0;
    std::shared_ptr<const void> owner = source_->lend(at + done, n - done, &data, &got);
    if (!owner || got == 0) break;
    out.add_lent(std::move(owner), data, std::min(got, n - done));
    done += std::min(got, n - done);
  }
  if (done == n) return;
  uint8_t* dst = out.add_scratch(n - done);
  if (source_->read_at(at + done, dst, n - done) != n - done)
    throw std::system_error(EIO, std::generic_category(), "short read from the model");
}

}  // namespace gguffs
