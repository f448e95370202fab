// Loading little- or big-endian numbers from unaligned bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gguf {

template <class T>
T byte_swap(T v) {
  static_assert(std::is_integral_v<T>);
  if constexpr (sizeof(T) == 1) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
  } else {
    return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
  }
}

// Reads a T stored at p in the given byte order (the host is little-endian x86-64/arm64).
template <class T>
T load(const void* p, bool big_endian) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return big_endian ? byte_swap(v) : v;
}

}  // namespace gguf
