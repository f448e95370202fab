#include "gguf/source/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace gguf {

namespace {

// FNV-1a, 64 bits: stable across builds and machines, unlike std::hash.
uint64_t fnv1a(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::string default_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/gguffs";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/gguffs";
}

DiskCache::DiskCache(const std::string& dir, const std::string& url, const std::string& validator,
                     uint64_t size) {
  const std::string key = url + '\n' + validator + '\n' + std::to_string(size);
  folder_ = fmt::format("{}/{:016x}", dir, fnv1a(key));
  std::error_code ec;
  std::filesystem::create_directories(folder_, ec);  // failing here only means no caching
}

std::shared_ptr<const BlockBytes> DiskCache::load(uint64_t index, size_t expected_size) const {
  const std::string path = fmt::format("{}/{}", folder_, index);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  auto data = std::make_shared<BlockBytes>(expected_size);
  struct stat st {};
  size_t done = 0;
  if (::fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) == expected_size) {
    while (done < expected_size) {
      const ssize_t n =
          ::pread(fd, data->data() + done, expected_size - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
  }
  ::close(fd);
  return done == expected_size ? data : nullptr;
}

void DiskCache::store(uint64_t index, const BlockBytes& data) const {
  const std::string path = fmt::format("{}/{}", folder_, index);
  const std::string temp = fmt::format("{}.{}.{}.tmp", path, ::getpid(),
                                       std::hash<std::thread::id>{}(std::this_thread::get_id()));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool ok = ::close(fd) == 0 && done == data.size();
  if (!ok || ::rename(temp.c_str(), path.c_str()) != 0) ::unlink(temp.c_str());
}

}  // namespace gguf
