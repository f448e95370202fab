#include "fs/cli/edit_commands.hpp"

#include <fcntl.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "fs/tree/names.hpp"
#include "gguf/edit/edited_model.hpp"
#include "gguf/edit/overlay.hpp"
#include "gguf/errors.hpp"

namespace gguffs {

namespace {

[[noreturn]] void io_error(const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", what, std::strerror(errno)));
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

void write_all(int fd, const char* data, size_t size, const std::string& name) {
  while (size != 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) io_error(name);
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void write_zeros(int fd, uint64_t size, const std::string& name) {
  static const char kZeros[64 * 1024] = {};
  while (size != 0) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(size, sizeof kZeros));
    write_all(fd, kZeros, n, name);
    size -= n;
  }
}

// size bytes of in at offset appended to out: copy_file_range (in the kernel, a reflink where the
// filesystem can), else read and write.
void copy_range(int in, uint64_t offset, uint64_t size, int out, const std::string& name) {
  auto off = static_cast<loff_t>(offset);
  while (size != 0) {
    const ssize_t n = ::copy_file_range(in, &off, out, nullptr, size, 0);
    if (n > 0) {
      size -= static_cast<uint64_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) throw std::runtime_error(name + ": the model file ends before its tensor data");
    if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) io_error(name);
    std::unique_ptr<char[]> buf(new char[1 << 20]);
    while (size != 0) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(size, 1 << 20));
      const ssize_t got = ::pread(in, buf.get(), want, off);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) throw std::runtime_error(name + ": cannot read the model's tensor data");
      write_all(out, buf.get(), static_cast<size_t>(got), name);
      off += got;
      size -= static_cast<uint64_t>(got);
    }
  }
}

std::string key_path(const CommandLine& cl) {
  return (std::filesystem::path(cl.mount_point) / "metadata" / names::encode(cl.key)).string();
}

}  // namespace

void export_model(const CommandLine& cl) {
  const gguf::ModelSet models = gguf::open_model_set(cl.model, cl.single);
  const bool be = models.first()->big_endian;
  const gguf::Overlay overlay = gguf::read_overlay(cl.overlay, be);
  const std::vector<gguf::EditedEntry> base =
      gguf::base_entries(*models.first(), /*keep_split_keys=*/!models.is_split());
  std::vector<gguf::EditedEntry> entries;
  try {
    entries = gguf::apply_overlay(models, base, overlay);
  } catch (const gguf::OverlayError& e) {
    throw gguf::OverlayError(cl.overlay + ": " + e.what());
  }
  // Unedited, the mount shows the model file itself (or the merged file of a split model).
  std::shared_ptr<const gguf::MergedLayout> layout = models.merged;
  if (!overlay.deleted.empty() || !overlay.pairs.empty())
    layout = gguf::build_edited_model(models.shards, entries, cl.model).layout;
  const std::string tmp = cl.path + ".tmp";
  Fd out(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (out.get() < 0) io_error(tmp);
  try {
    if (!layout) {
      const auto& source = models.first()->source;
      copy_range(source->fd(), 0, source->size(), out.get(), cl.path);
    } else {
      for (const gguf::MergedSegment& s : layout->segments) {
        switch (s.kind) {
          case gguf::MergedSegment::Kind::header:
            write_all(out.get(), layout->header.data(), layout->header.size(), cl.path);
            break;
          case gguf::MergedSegment::Kind::zeros:
            write_zeros(out.get(), s.size, cl.path);
            break;
          case gguf::MergedSegment::Kind::shard:
            if (s.present != s.size)
              throw std::runtime_error(cl.model + ": the model lacks tensor data (a partial file)");
            copy_range(models.shards.at(s.shard)->source->fd(), s.shard_offset, s.size, out.get(),
                       cl.path);
            break;
        }
      }
    }
    if (::fsync(out.get()) != 0 || ::close(out.release()) != 0) io_error(tmp);
    if (::rename(tmp.c_str(), cl.path.c_str()) != 0) io_error(cl.path);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

void set_key(const CommandLine& cl) {
  const std::string path = key_path(cl);
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  const bool created = fd < 0 && errno == ENOENT;
  if (created) fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) io_error(path);
  Fd file(fd);
  if (!cl.type.empty()) {
    if (!created) {
      char current[256];
      const ssize_t n = ::getxattr(path.c_str(), "user.gguf.type", current, sizeof current);
      if (n < 0 || std::string(current, static_cast<size_t>(n)) != cl.type)
        throw EditCommandError(fmt::format("{} exists and keeps its type ({})", cl.key,
                                           n < 0 ? "?" : std::string(current, n)));
    } else if (::fsetxattr(fd, "user.gguf.type", cl.type.data(), cl.type.size(), 0) != 0) {
      throw EditCommandError(fmt::format("--type {}: {}", cl.type, std::strerror(errno)));
    }
  }
  write_all(fd, cl.value.data(), cl.value.size(), path);
  if (::close(file.release()) != 0) {
    const int err = errno;
    char reason[4096];
    const ssize_t n = ::getxattr(path.c_str(), "user.gguf.error", reason, sizeof reason);
    if (created) ::unlink(path.c_str());
    if (n > 0) throw EditCommandError(std::string(reason, static_cast<size_t>(n)));
    errno = err;
    io_error(path);
  }
}

void unset_key(const CommandLine& cl) {
  const std::string path = key_path(cl);
  if (::unlink(path.c_str()) != 0) io_error(path);
}

}  // namespace gguffs
