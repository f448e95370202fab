// `-o cache_dir=DIR`: blocks of remote files kept on disk, so a remount downloads nothing twice.
// Each file's blocks live in DIR/<key>/<index>, the key a hash of the URL, the validator (ETag or
// Last-Modified) and the size: a changed file gets a new key and never meets old blocks. Files are
// written to a temporary name and renamed, so a block on disk is always whole. The cache is
// best effort: a block that cannot be written or read is fetched again.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gguf/source/block_memory.hpp"

namespace gguf {

class DiskCache {
 public:
  DiskCache(const std::string& dir, const std::string& url, const std::string& validator,
            uint64_t size);

  // The block's bytes when stored with exactly expected_size bytes; nullptr otherwise.
  std::shared_ptr<const BlockBytes> load(uint64_t index, size_t expected_size) const;
  void store(uint64_t index, const BlockBytes& data) const;

  const std::string& folder() const { return folder_; }

 private:
  std::string folder_;
};

// The default folder for `-o cache_dir` without a value: $XDG_CACHE_HOME/gguffs, else
// ~/.cache/gguffs.
std::string default_cache_dir();

}  // namespace gguf
