// The in-memory cache of a remote file's bytes: aligned blocks, bounded in bytes, least recently
// used blocks dropped first. A block is claimed by the one reader that fetches it; every other
// reader of that block waits for it (single flight), and a failed fetch is handed to each waiter
// as the same exception, until the next claim of the block tries again.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace gguf {

class BlockCache {
 public:
  using Data = std::shared_ptr<const std::vector<uint8_t>>;

  // capacity in bytes (at least 4 blocks are kept).
  BlockCache(uint64_t capacity, size_t block_size);

  size_t block_size() const { return block_size_; }
  size_t capacity_blocks() const { return capacity_blocks_; }

  // Of indices, the ones nobody holds or fetches: now marked as being fetched by the caller, who
  // must fill() or fail() each of them.
  std::vector<uint64_t> claim(const std::vector<uint64_t>& indices);
  void fill(uint64_t index, Data data);
  void fail(uint64_t index, std::exception_ptr error);
  // Whether the block is in the cache, fetched.
  bool ready(uint64_t index);
  // Waits for a claimed block; its data, or nullptr when the block is not in the cache (never
  // claimed, or dropped since). Rethrows the error of a failed fetch.
  Data wait(uint64_t index);

 private:
  struct Entry {
    Data data;  // null while being fetched
    std::exception_ptr error;
    uint64_t last_use = 0;
  };
  void evict_locked();

  const size_t block_size_;
  const size_t capacity_blocks_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<uint64_t, std::shared_ptr<Entry>> entries_;
  size_t ready_ = 0;
  uint64_t clock_ = 0;
};

}  // namespace gguf
