// What a file of the tree holds. Contents are immutable and shared by all readers; read() may be
// called from several FUSE threads at once.
//
// Kinds: LazyText (content_text.hpp), ByteRange (content_range.hpp), Segmented
// (content_segmented.hpp). Later kinds (decoded data.f32 / data.npy) decode into the
// ReadBuffer's scratch space.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fs/tree/read_buffer.hpp"

namespace gguffs {

class FileContent {
 public:
  virtual ~FileContent() = default;
  // The exact size in bytes (may do the work of producing the content once).
  virtual uint64_t size() const = 0;
  // Appends the bytes [off, off + len) clamped to size() to out. Throws std::system_error
  // (EIO for bytes a partial file lacks).
  virtual void read(uint64_t off, size_t len, ReadBuffer& out) const = 0;
  // False when the content cannot sensibly go through the page cache (served with direct_io,
  // which makes mmap fail). Everything so far may be mapped.
  virtual bool may_be_mapped() const { return true; }

 protected:
  // How many bytes a read of len at off returns for a content of this size.
  static size_t clamp(uint64_t off, size_t len, uint64_t size) {
    if (off >= size) return 0;
    return size - off < len ? static_cast<size_t>(size - off) : len;
  }
};

}  // namespace gguffs
