// The in-memory cache of a remote file's bytes: aligned blocks, bounded in bytes, least recently
// used blocks dropped first. A block is claimed by the one reader that fetches it; every other
// reader of that block waits for it (single flight), and a failed fetch is handed to each waiter
// as the same exception, until the next claim of the block tries again.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "gguf/source/block_memory.hpp"

namespace gguf {

class BlockCache {
 public:
  using Data = std::shared_ptr<const BlockBytes>;

  // capacity in bytes (at least 4 blocks are kept).
  BlockCache(uint64_t capacity, size_t block_size, size_t ring_blocks = 16);

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
  // A sequential reader has read past the block. Such blocks are kept in a ring of ring_blocks
  // (the oldest dropped first), not in the whole cache: a long scan does not push out blocks
  // that other readers reuse (as databases do for scans), and its memory is reused while warm
  // (fresh pages were a third of the daemon's work). A block used again leaves the ring.
  void passed(uint64_t index);

 private:
  struct Entry {
    Data data;  // null while being fetched
    std::exception_ptr error;
    uint64_t last_use = 0;
    bool passed = false;
  };
  void evict_locked();

  const size_t block_size_;
  const size_t capacity_blocks_;
  const size_t ring_blocks_;
  std::deque<uint64_t> ring_;  // passed blocks, oldest first (entries used since are skipped)
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<uint64_t, std::shared_ptr<Entry>> entries_;
  size_t ready_ = 0;
  uint64_t clock_ = 0;
};

}  // namespace gguf
