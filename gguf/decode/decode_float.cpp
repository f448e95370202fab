// The plain types: one element per "block", stored as a little-endian array. Floats widen
// exactly; integers (and F64) go to the nearest float32, as static_cast does.
#include <bit>
#include <cstring>

#include "gguf/decode/decode.hpp"
#include "gguf/decode/decode_internal.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define GGUFFS_HAVE_F16C_PATH 1
#endif

namespace gguf {

float fp16_to_fp32(uint16_t h) {
  return decode::half_to_float(h);
}
float bf16_to_fp32(uint16_t h) {
  return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}

namespace decode {

namespace {

#ifdef GGUFFS_HAVE_F16C_PATH
// F16C's VCVTPH2PS is exact and quiets NaN the way ggml does (checked against all 65,536
// inputs in the tests), and is several times faster than the bit juggling.
bool cpu_has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  // "avx" also checks that the OS saves the vector registers, which VEX code needs.
  return (ecx & bit_F16C) != 0 && __builtin_cpu_supports("avx");
}

__attribute__((target("avx,f16c"))) void decode_f16_f16c(const uint8_t* src, size_t n, float* dst) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = half_to_float(load_u16(src + 2 * i));
}
#endif

void decode_f16_portable(const uint8_t* src, size_t n, float* dst) {
  for (size_t i = 0; i < n; ++i) dst[i] = half_to_float(load_u16(src + 2 * i));
}

}  // namespace

void decode_f32(const uint8_t* src, size_t n, float* dst) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(dst, src, n * sizeof(float));
  } else {
    for (size_t i = 0; i < n; ++i) dst[i] = std::bit_cast<float>(load_u32(src + 4 * i));
  }
}

void decode_f16(const uint8_t* src, size_t n, float* dst) {
#ifdef GGUFFS_HAVE_F16C_PATH
  static const bool f16c = cpu_has_f16c();
  if (f16c) return decode_f16_f16c(src, n, dst);
#endif
  decode_f16_portable(src, n, dst);
}

void decode_bf16(const uint8_t* src, size_t n, float* dst) {
  for (size_t i = 0; i < n; ++i) {
    dst[i] = std::bit_cast<float>(static_cast<uint32_t>(load_u16(src + 2 * i)) << 16);
  }
}

void decode_f64(const uint8_t* src, size_t n, float* dst) {
  for (size_t i = 0; i < n; ++i) {
    dst[i] = static_cast<float>(std::bit_cast<double>(load_u64(src + 8 * i)));
  }
}

void decode_i8(const uint8_t* src, size_t n, float* dst) {
  for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(static_cast<int8_t>(src[i]));
}

void decode_i16(const uint8_t* src, size_t n, float* dst) {
  for (size_t i = 0; i < n; ++i) {
    dst[i] = static_cast<float>(static_cast<int16_t>(load_u16(src + 2 * i)));
  }
}

void decode_i32(const uint8_t* src, size_t n, float* dst) {
  for (size_t i = 0; i < n; ++i) {
    dst[i] = static_cast<float>(static_cast<int32_t>(load_u32(src + 4 * i)));
  }
}

void decode_i64(const uint8_t* src, size_t n, float* dst) {
  for (size_t i = 0; i < n; ++i) {
    dst[i] = static_cast<float>(static_cast<int64_t>(load_u64(src + 8 * i)));
  }
}

}  // namespace decode
}  // namespace gguf
