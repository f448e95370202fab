#include "tests/support/test_support.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace test_support {

std::filesystem::path data_file(const std::string& relative) {
  return std::filesystem::path(GGUFFS_TEST_DATA_DIR) / relative;
}
std::filesystem::path gguffs_binary() {
  return GGUFFS_BINARY;
}

std::string read_file(const std::filesystem::path& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string read_range(const std::filesystem::path& path, uint64_t offset, uint64_t size) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
  std::string out(size, '\0');
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pread(fd, out.data() + done, size - done, static_cast<off_t>(offset + done));
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
  if (done != size) {
    throw std::runtime_error(path.string() + ": read " + std::to_string(done) + " of " +
                             std::to_string(size) + " bytes at " + std::to_string(offset));
  }
  return out;
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "gguffs-test-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

EnvGuard::EnvGuard(const char* name, std::optional<std::string> value) : name_(name) {
  if (const char* old = std::getenv(name)) old_ = old;
  if (value) {
    setenv(name, value->c_str(), 1);
  } else {
    unsetenv(name);
  }
}

EnvGuard::~EnvGuard() {
  if (old_) {
    setenv(name_, old_->c_str(), 1);
  } else {
    unsetenv(name_);
  }
}

std::vector<ManifestRow> alltypes_manifest() {
  std::istringstream in(read_file(data_file("alltypes/manifest.tsv")));
  std::string line;
  std::getline(in, line);  // header
  std::vector<ManifestRow> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::istringstream fields(line);
    std::string field;
    while (std::getline(fields, field, '\t')) f.push_back(field);
    if (f.size() != 8) throw std::runtime_error("bad manifest line: " + line);
    ManifestRow r;
    r.index = std::stoi(f[0]);
    r.name = f[1];
    r.type_name = f[2];
    r.type_id = static_cast<uint32_t>(std::stoul(f[3]));
    std::istringstream dims(f[4]);
    uint64_t d;
    while (dims >> d) r.dims.push_back(d);
    r.elements = std::stoull(f[5]);
    r.bytes = std::stoull(f[6]);
    r.ref_file = f[7];
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace test_support
