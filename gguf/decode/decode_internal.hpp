// Shared pieces of the decoders: little-endian loads, the exact fp16 conversion, and the
// per-type kernels that decode.cpp's dispatch table points at.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

namespace gguf::decode {

// Loads assembled byte by byte: correct on any host, and a single load on x86 after -O2.
inline uint16_t load_u16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | p[1] << 8);
}
inline uint32_t load_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
inline uint64_t load_u64(const uint8_t* p) {
  return static_cast<uint64_t>(load_u32(p)) | static_cast<uint64_t>(load_u32(p + 4)) << 32;
}

// Exact binary16 -> binary32. Every finite half is representable as a float, so the only
// choices are for NaN: ggml (and F16C) keep sign and payload (shifted left by 13) and set the
// quiet bit, so 0x7C01 -> 0x7FC02000.
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t magnitude = h & 0x7FFFu;  // exponent and mantissa
  uint32_t bits;
  if (magnitude >= 0x7C00u) {  // inf or NaN
    const uint32_t payload = (magnitude & 0x3FFu) << 13;
    bits = 0x7F800000u | payload | (payload != 0 ? 0x00400000u : 0u);
  } else if (magnitude >= 0x0400u) {  // normal: rebias the exponent from 15 to 127
    bits = (magnitude << 13) + ((127u - 15u) << 23);
  } else {  // zero or subnormal: mantissa * 2^-24, exact in float
    bits = std::bit_cast<uint32_t>(static_cast<float>(magnitude) * 0x1p-24f);
  }
  return std::bit_cast<float>(sign | bits);
}

inline float half_at(const uint8_t* p) {
  return half_to_float(load_u16(p));
}

// Every kernel decodes n consecutive blocks from src into dst (block_size floats each).
using Kernel = void (*)(const uint8_t* src, size_t n, float* dst);

// decode_float.cpp
void decode_f32(const uint8_t* src, size_t n, float* dst);
void decode_f16(const uint8_t* src, size_t n, float* dst);
void decode_bf16(const uint8_t* src, size_t n, float* dst);
void decode_f64(const uint8_t* src, size_t n, float* dst);
void decode_i8(const uint8_t* src, size_t n, float* dst);
void decode_i16(const uint8_t* src, size_t n, float* dst);
void decode_i32(const uint8_t* src, size_t n, float* dst);
void decode_i64(const uint8_t* src, size_t n, float* dst);

// decode_legacy.cpp
void decode_q4_0(const uint8_t* src, size_t n, float* dst);
void decode_q4_1(const uint8_t* src, size_t n, float* dst);
void decode_q5_0(const uint8_t* src, size_t n, float* dst);
void decode_q5_1(const uint8_t* src, size_t n, float* dst);
void decode_q8_0(const uint8_t* src, size_t n, float* dst);
void decode_q1_0(const uint8_t* src, size_t n, float* dst);
void decode_q2_0(const uint8_t* src, size_t n, float* dst);
void decode_mxfp4(const uint8_t* src, size_t n, float* dst);
void decode_nvfp4(const uint8_t* src, size_t n, float* dst);
void decode_iq4_nl(const uint8_t* src, size_t n, float* dst);

// decode_kquants.cpp
void decode_q2_k(const uint8_t* src, size_t n, float* dst);
void decode_q3_k(const uint8_t* src, size_t n, float* dst);
void decode_q4_k(const uint8_t* src, size_t n, float* dst);
void decode_q5_k(const uint8_t* src, size_t n, float* dst);
void decode_q6_k(const uint8_t* src, size_t n, float* dst);
void decode_q8_k(const uint8_t* src, size_t n, float* dst);
void decode_tq1_0(const uint8_t* src, size_t n, float* dst);
void decode_tq2_0(const uint8_t* src, size_t n, float* dst);

// decode_iquants.cpp
void decode_iq2_xxs(const uint8_t* src, size_t n, float* dst);
void decode_iq2_xs(const uint8_t* src, size_t n, float* dst);
void decode_iq2_s(const uint8_t* src, size_t n, float* dst);
void decode_iq3_xxs(const uint8_t* src, size_t n, float* dst);
void decode_iq3_s(const uint8_t* src, size_t n, float* dst);
void decode_iq1_s(const uint8_t* src, size_t n, float* dst);
void decode_iq1_m(const uint8_t* src, size_t n, float* dst);
void decode_iq4_xs(const uint8_t* src, size_t n, float* dst);

}  // namespace gguf::decode
