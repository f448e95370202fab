// Where the model's bytes come from: a read-only file (the real thing, which FUSE can splice
// from) or a memory buffer (tests and the fuzzer). Nothing here ever writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace gguf {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // The size seen when the source was opened; the model's layout is checked against it.
  virtual uint64_t size() const = 0;
  // Reads up to len bytes at offset; returns the count read (short at the end of the data).
  // Throws FormatError(io) on a read error.
  virtual size_t read_at(uint64_t offset, void* dst, size_t len) const = 0;
  // Bytes at offset the source already holds in memory, lent instead of copied (a remote file's
  // cached block): sets *data to up to len of them (*got >= 1 when offset < size()) and returns
  // what keeps them alive; returns null when the source lends nothing (then use read_at).
  // Throws like read_at.
  virtual std::shared_ptr<const void> lend(uint64_t /*offset*/, size_t /*len*/,
                                           const uint8_t** /*data*/, size_t* /*got*/) const {
    return nullptr;
  }
  // The first bytes of the source when it holds them in memory, unchanged, for as long as the
  // returned owner lives (a merged or edited header): sets *data and *size, and the parser reads
  // them in place instead of copying. Null when the source has no such prefix.
  virtual std::shared_ptr<const void> lend_prefix(const uint8_t** /*data*/,
                                                  size_t* /*size*/) const {
    return nullptr;
  }
  // The file descriptor for zero-copy replies, or -1 for memory sources.
  virtual int fd() const { return -1; }
  // The name used in messages (the path as the user gave it).
  virtual const std::string& name() const = 0;
  // Where a header read that starts at offset may stop when it needs less: the end of what
  // read_at gives cheaply (a file: 2 MiB on; memory: everything; a remote file: the bytes already
  // downloaded, so parsing never asks the network for more than it needs).
  virtual uint64_t cheap_end(uint64_t offset) const { return offset + (uint64_t{2} << 20); }
  // The modification time of the file (seconds, nanoseconds), 0 for memory.
  virtual struct timespec mtime() const { return {}; }
};

// Opens path read-only (O_RDONLY | O_CLOEXEC). Throws FormatError(io) naming the file.
std::shared_ptr<ByteSource> open_file(const std::string& path);
// Opens a model location (a path, or a URL for remote sources). open_file by default.
using SourceOpener = std::function<std::shared_ptr<ByteSource>(const std::string& location)>;

// A source over a copy of bytes, named name.
std::shared_ptr<ByteSource> memory_source(std::string bytes, std::string name = "<memory>");

}  // namespace gguf
