// Small helpers shared by the tests: where the fixtures are, reading files, temporary folders.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace test_support {

// tests/data/relative: the fixtures and reference data the repository carries
// (tests/data/README.md).
std::filesystem::path data_file(const std::string& relative);
// build/gguffs, the program under test.
std::filesystem::path gguffs_binary();

std::string read_file(const std::filesystem::path& path);
// size bytes of path at offset, with pread (through a mount: exactly what a reader gets).
// Throws std::runtime_error when the file cannot be opened or holds fewer bytes.
std::string read_range(const std::filesystem::path& path, uint64_t offset, uint64_t size);
void write_file(const std::filesystem::path& path, const std::string& bytes);

// A fresh empty folder under $TMPDIR, removed (recursively) when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Sets (or unsets, for nullopt) an environment variable for this process and the programs a
// test runs, and puts the old value back when it goes away.
class EnvGuard {
 public:
  EnvGuard(const char* name, std::optional<std::string> value);
  ~EnvGuard();
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// One row of tests/data/alltypes/manifest.tsv.
struct ManifestRow {
  int index;
  std::string name;
  std::string type_name;  // ggml's lowercase name, e.g. "q4_K"
  uint32_t type_id;
  std::vector<uint64_t> dims;  // GGUF order
  uint64_t elements;
  uint64_t bytes;
  std::string ref_file;  // relative to tests/data/alltypes
};
std::vector<ManifestRow> alltypes_manifest();

}  // namespace test_support
