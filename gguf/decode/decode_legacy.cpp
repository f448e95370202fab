// Blocks of 32-128 elements with one or two scales: the original ggml quants (Q4_0 .. Q8_0),
// the 1- and 2-bit Q1_0/Q2_0, the FP4 formats (MXFP4, NVFP4) and IQ4_NL (reference §1.4).
// Each output is computed with the same float32 operations, in the same order, as ggml.
#include <bit>

#include "gguf/decode/decode_internal.hpp"
#include "gguf/decode/decode_tables.hpp"

namespace gguf::decode {

// Q4_0, 18 bytes: @0 f16 d | @2 qs[16]. Element j is the low nibble of qs[j], element j+16
// the high nibble; value (q - 8) * d.
void decode_q4_0(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 18, dst += 32) {
    const float d = half_at(src);
    const uint8_t* qs = src + 2;
    for (int j = 0; j < 16; ++j) {
      dst[j] = static_cast<float>((qs[j] & 15) - 8) * d;
      dst[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
    }
  }
}

// Q4_1, 20 bytes: @0 f16 d | @2 f16 m | @4 qs[16]. Value q * d + m.
void decode_q4_1(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 20, dst += 32) {
    const float d = half_at(src);
    const float m = half_at(src + 2);
    const uint8_t* qs = src + 4;
    for (int j = 0; j < 16; ++j) {
      dst[j] = static_cast<float>(qs[j] & 15) * d + m;
      dst[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
    }
  }
}

// Q5_0, 22 bytes: @0 f16 d | @2 u32 qh (bit j = 5th bit of element j) | @6 qs[16].
// Value (q5 - 16) * d.
void decode_q5_0(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 22, dst += 32) {
    const float d = half_at(src);
    const uint32_t qh = load_u32(src + 2);
    const uint8_t* qs = src + 6;
    for (int j = 0; j < 16; ++j) {
      const int hi0 = static_cast<int>((qh >> j) << 4 & 0x10);
      const int hi1 = static_cast<int>((qh >> (j + 12)) & 0x10);
      dst[j] = static_cast<float>(((qs[j] & 15) | hi0) - 16) * d;
      dst[j + 16] = static_cast<float>(((qs[j] >> 4) | hi1) - 16) * d;
    }
  }
}

// Q5_1, 24 bytes: @0 f16 d | @2 f16 m | @4 u32 qh | @8 qs[16]. Value q5 * d + m.
void decode_q5_1(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 24, dst += 32) {
    const float d = half_at(src);
    const float m = half_at(src + 2);
    const uint32_t qh = load_u32(src + 4);
    const uint8_t* qs = src + 8;
    for (int j = 0; j < 16; ++j) {
      const int hi0 = static_cast<int>((qh >> j) << 4 & 0x10);
      const int hi1 = static_cast<int>((qh >> (j + 12)) & 0x10);
      dst[j] = static_cast<float>((qs[j] & 15) | hi0) * d + m;
      dst[j + 16] = static_cast<float>((qs[j] >> 4) | hi1) * d + m;
    }
  }
}

// Q8_0, 34 bytes: @0 f16 d | @2 int8 qs[32]. Value q * d.
void decode_q8_0(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 34, dst += 32) {
    const float d = half_at(src);
    const uint8_t* qs = src + 2;
    for (int j = 0; j < 32; ++j) dst[j] = static_cast<float>(static_cast<int8_t>(qs[j])) * d;
  }
}

// Q1_0, 18 bytes: @0 f16 d | @2 qs[16], 128 sign bits, LSB first. Value +d or -d.
// Negation only flips the sign bit, so a set bit flips it back on -d (this form vectorizes).
void decode_q1_0(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 18, dst += 128) {
    const uint32_t minus_d = std::bit_cast<uint32_t>(-half_at(src));
    const uint8_t* qs = src + 2;
    for (int i = 0; i < 16; ++i) {
      for (int k = 0; k < 8; ++k) {
        const uint32_t bit = (qs[i] >> k) & 1u;
        dst[8 * i + k] = std::bit_cast<float>(minus_d ^ bit << 31);
      }
    }
  }
}

// Q2_0, 18 bytes: @0 f16 d | @2 qs[16], 64 sequential 2-bit codes, low bits first.
// Value (code - 1) * d.
void decode_q2_0(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 18, dst += 64) {
    const float d = half_at(src);
    const uint8_t* qs = src + 2;
    for (int j = 0; j < 64; ++j) {
      const int code = (qs[j / 4] >> (2 * (j % 4))) & 3;
      dst[j] = static_cast<float>(code - 1) * d;
    }
  }
}

namespace {

// E8M0 exponent byte -> 2^(e-128): half the MXFP4 scale, because kValuesFp4 is doubled.
// e = 0 and 1 fall below the normal range and become subnormal bit patterns.
float e8m0_half(uint8_t e) {
  if (e < 2) return std::bit_cast<float>(e == 0 ? 0x00200000u : 0x00400000u);
  return std::bit_cast<float>(static_cast<uint32_t>(e - 1) << 23);
}

// UE4M3 scale byte -> half its value. Bit 7 is ignored; 0x00 and 0x7F mean 0. Every result
// is a small power of two times 1..1.875, so building the bits directly is exact.
float ue4m3_half(uint8_t x) {
  if (x == 0x00 || x == 0x7F) return 0.0f;
  const uint32_t e = (x >> 3) & 15, m = x & 7;
  if (e == 0) return static_cast<float>(m) * 0x1p-10f;         // m * 2^-9, halved
  return std::bit_cast<float>((e - 8 + 127) << 23 | m << 20);  // (1 + m/8) * 2^(e-7), halved
}

}  // namespace

// MXFP4, 17 bytes: @0 u8 e (E8M0) | @1 qs[16] (E2M1 nibbles; low = element j, high = j+16).
void decode_mxfp4(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 17, dst += 32) {
    const float d = e8m0_half(src[0]);
    const uint8_t* qs = src + 1;
    for (int j = 0; j < 16; ++j) {
      dst[j] = static_cast<float>(kValuesFp4[qs[j] & 15]) * d;
      dst[j + 16] = static_cast<float>(kValuesFp4[qs[j] >> 4]) * d;
    }
  }
}

// NVFP4, 36 bytes: @0 u8 d[4] (UE4M3, one per 16 elements) | @4 qs[32]. Sub-block s uses
// qs[8s..8s+7]: low nibbles give elements 16s..16s+7, high nibbles 16s+8..16s+15.
void decode_nvfp4(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 36) {
    for (int s = 0; s < 4; ++s, dst += 16) {
      const float d = ue4m3_half(src[s]);
      const uint8_t* qs = src + 4 + 8 * s;
      for (int j = 0; j < 8; ++j) {
        dst[j] = static_cast<float>(kValuesFp4[qs[j] & 15]) * d;
        dst[j + 8] = static_cast<float>(kValuesFp4[qs[j] >> 4]) * d;
      }
    }
  }
}

// IQ4_NL, 18 bytes: @0 f16 d | @2 qs[16]; nibbles index the non-linear kValuesIq4nl.
void decode_iq4_nl(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 18, dst += 32) {
    const float d = half_at(src);
    const uint8_t* qs = src + 2;
    for (int j = 0; j < 16; ++j) {
      dst[j] = d * static_cast<float>(kValuesIq4nl[qs[j] & 15]);
      dst[j + 16] = d * static_cast<float>(kValuesIq4nl[qs[j] >> 4]);
    }
  }
}

}  // namespace gguf::decode
