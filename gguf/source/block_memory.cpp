#include "gguf/source/block_memory.hpp"

#include <sys/mman.h>

#include <mutex>

namespace gguf::block_memory {

namespace {

constexpr size_t kHugePage = size_t{2} << 20;
// Regions are mapped 32 blocks at a time; memory given back is kept for reuse, never unmapped
// (the cache bounds how many blocks live at once).
constexpr size_t kRegionBlocks = 32;

class Pool {
 public:
  void* take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) add_region();
    void* p = free_.back();
    free_.pop_back();
    return p;
  }

  void give_back(void* p) noexcept {
    std::lock_guard lock(mutex_);
    free_.push_back(p);
  }

 private:
  void add_region() {
    const size_t bytes = kRegionBlocks * kPooledBytes;
    // One huge page more than needed, so the region can start on a huge-page boundary.
    void* raw = ::mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    auto* base = static_cast<uint8_t*>(raw);
    const auto at = reinterpret_cast<uintptr_t>(base);
    uint8_t* aligned = base + (kHugePage - at % kHugePage) % kHugePage;
    // Best effort: where transparent huge pages are off this changes nothing.
    ::madvise(aligned, bytes, MADV_HUGEPAGE);
    free_.reserve((regions_ + 1) * kRegionBlocks);  // room for every block: give_back never throws
    for (size_t i = kRegionBlocks; i-- > 0;) free_.push_back(aligned + i * kPooledBytes);
    ++regions_;
  }

  std::mutex mutex_;
  std::vector<void*> free_;
  size_t regions_ = 0;
};

// Never destroyed: blocks may be given back by threads that outlive static destruction.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

}  // namespace

void* take() {
  return pool().take();
}

void give_back(void* p) noexcept {
  pool().give_back(p);
}

}  // namespace gguf::block_memory
