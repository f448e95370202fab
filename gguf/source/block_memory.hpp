// Memory for the blocks of a remote file's cache (BlockBytes), and why it is not plain new[]:
// a first read of a 256 MiB tensor fills 256 fresh 1 MiB blocks, and the daemon spent more than
// half of its CPU zeroing them (std::vector value-initializes) and in the 65,536 page faults of
// first touching them, more than libcurl spent receiving the bytes. Here blocks of exactly
// kPooledBytes come from regions advised to use 2 MiB huge pages (one fault per two blocks
// where the kernel has them), are not zeroed (libcurl or a pread overwrites every byte; a
// shorter answer is refused before the block is used), and go back to a free list when the last
// reader drops them, so a long read reuses warm memory once the cache is full. Other sizes (the
// last block of a file) use the heap, also without zeroing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace gguf {

inline constexpr size_t kPooledBytes = size_t{1} << 20;  // the block size of remote sources

namespace block_memory {
// A kPooledBytes buffer from the pool (throws std::bad_alloc), and its return.
void* take();
void give_back(void* p) noexcept;
}  // namespace block_memory

// std::allocator for bytes, except that buffers of kPooledBytes come from the pool and that
// elements are default-initialized (not zeroed).
template <class T>
struct BlockAllocator {
  using value_type = T;
  BlockAllocator() = default;
  template <class U>
  BlockAllocator(const BlockAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n * sizeof(T) == kPooledBytes) return static_cast<T*>(block_memory::take());
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) == kPooledBytes) return block_memory::give_back(p);
    std::allocator<T>().deallocate(p, n);
  }
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialized: no zeroing
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const BlockAllocator<U>&) const noexcept {
    return true;
  }
};

// The bytes of one cached block.
using BlockBytes = std::vector<uint8_t, BlockAllocator<uint8_t>>;

}  // namespace gguf
