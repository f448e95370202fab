#include "gguf/source/source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gguf/errors.hpp"

namespace gguf {

namespace {

class FileSource final : public ByteSource {
 public:
  explicit FileSource(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail("cannot open: ");
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail("cannot stat: ");
    if (S_ISDIR(st.st_mode)) {
      ::close(fd_);
      throw FormatError(FormatError::Kind::io, path_, std::nullopt,
                        "is a directory, expected a GGUF file");
    }
    size_ = static_cast<uint64_t>(st.st_size);
    mtime_ = st.st_mtim;
  }
  ~FileSource() override { ::close(fd_); }

  uint64_t size() const override { return size_; }
  int fd() const override { return fd_; }
  const std::string& name() const override { return path_; }
  struct timespec mtime() const override {
    return mtime_;
  }

  size_t read_at(uint64_t offset, void* dst, size_t len) const override {
    size_t done = 0;
    auto* out = static_cast<char*>(dst);
    while (done < len) {
      ssize_t n = ::pread(fd_, out + done, len - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        throw FormatError(FormatError::Kind::io, path_, offset + done,
                          std::string("read error: ") + std::strerror(errno));
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    return done;
  }

 private:
  [[noreturn]] void fail(const char* what) {
    int err = errno;
    if (fd_ >= 0) ::close(fd_);
    throw FormatError(FormatError::Kind::io, path_, std::nullopt,
                      std::string(what) + std::strerror(err));
  }

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  struct timespec mtime_ {};
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string bytes, std::string name)
      : bytes_(std::move(bytes)), name_(std::move(name)) {}
  uint64_t size() const override { return bytes_.size(); }
  const std::string& name() const override { return name_; }
  uint64_t cheap_end(uint64_t) const override { return bytes_.size(); }
  size_t read_at(uint64_t offset, void* dst, size_t len) const override {
    if (offset >= bytes_.size()) return 0;
    size_t n = std::min<uint64_t>(len, bytes_.size() - offset);
    std::memcpy(dst, bytes_.data() + offset, n);
    return n;
  }

 private:
  std::string bytes_;
  std::string name_;
};

}  // namespace

std::shared_ptr<ByteSource> open_file(const std::string& path) {
  return std::make_shared<FileSource>(path);
}

std::shared_ptr<ByteSource> memory_source(std::string bytes, std::string name) {
  return std::make_shared<MemorySource>(std::move(bytes), std::move(name));
}

}  // namespace gguf
