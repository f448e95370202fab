#include "gguf/source/block_cache.hpp"

#include <algorithm>

namespace gguf {

BlockCache::BlockCache(uint64_t capacity, size_t block_size, size_t ring_blocks)
    : block_size_(block_size),
      capacity_blocks_(static_cast<size_t>(std::max<uint64_t>(capacity / block_size, 4))),
      ring_blocks_(ring_blocks) {}

std::vector<uint64_t> BlockCache::claim(const std::vector<uint64_t>& indices) {
  std::vector<uint64_t> mine;
  std::lock_guard lock(mutex_);
  for (const uint64_t i : indices) {
    // (an entry with an error is replaced by a fresh one; its old waiters keep the old one)
    auto [it, inserted] = entries_.try_emplace(i);
    if (inserted || it->second->error) {
      it->second = std::make_shared<Entry>();
      mine.push_back(i);
    } else {
      it->second->last_use = ++clock_;
      it->second->passed = false;
    }
  }
  return mine;
}

void BlockCache::fill(uint64_t index, Data data) {
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(index);
    if (it == entries_.end() || it->second->data) return;
    it->second->data = std::move(data);
    it->second->last_use = ++clock_;
    ++ready_;
    evict_locked();
  }
  changed_.notify_all();
}

void BlockCache::fail(uint64_t index, std::exception_ptr error) {
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(index);
    if (it == entries_.end() || it->second->data) return;
    // Waiters (the fetching reader too) see the error; the next claim() fetches it afresh.
    it->second->error = std::move(error);
  }
  changed_.notify_all();
}

bool BlockCache::ready(uint64_t index) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(index);
  return it != entries_.end() && it->second->data;
}

BlockCache::Data BlockCache::wait(uint64_t index) {
  std::unique_lock lock(mutex_);
  auto it = entries_.find(index);
  if (it == entries_.end()) return nullptr;
  const std::shared_ptr<Entry> entry = it->second;
  changed_.wait(lock, [&] { return entry->data || entry->error; });
  if (entry->error) std::rethrow_exception(entry->error);
  entry->last_use = ++clock_;
  entry->passed = false;
  return entry->data;
}

void BlockCache::passed(uint64_t index) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(index);
  if (it == entries_.end() || !it->second->data || it->second->passed) return;
  it->second->passed = true;
  ring_.push_back(index);
  while (ring_.size() > ring_blocks_) {
    const auto oldest = entries_.find(ring_.front());
    ring_.pop_front();
    if (oldest != entries_.end() && oldest->second->data && oldest->second->passed) {
      entries_.erase(oldest);  // readers holding its data keep it alive until they are done
      --ready_;
    }
  }
}

void BlockCache::evict_locked() {
  // A linear scan: a few hundred blocks at most, once per filled block.
  while (ready_ > capacity_blocks_) {
    auto oldest = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->second->data &&
          (oldest == entries_.end() || it->second->last_use < oldest->second->last_use))
        oldest = it;
    }
    if (oldest == entries_.end()) return;
    entries_.erase(oldest);  // readers holding its data keep it alive until they are done
    --ready_;
  }
}

}  // namespace gguf
