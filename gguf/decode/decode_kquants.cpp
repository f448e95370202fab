// The k-quants (super-blocks of 256 elements with packed sub-block scales), Q8_K, and the
// ternary TQ1_0/TQ2_0 (reference §1.4). Same float32 operations, same order, as ggml.
#include <bit>

#include "gguf/decode/decode_internal.hpp"

namespace gguf::decode {

// Q2_K, 84 bytes: @0 scales[16] (low nibble scale, high nibble min) | @16 qs[64] |
// @80 f16 d | @82 f16 dmin. Two halves of 128; half h reads qs[32h..32h+31] four times
// (shift 0, 2, 4, 6), each time as two 16-element parts with the next scale byte.
void decode_q2_k(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 84) {
    const uint8_t* scales = src;
    const float d = half_at(src + 80);
    const float dmin = half_at(src + 82);
    int is = 0;
    for (int half = 0; half < 2; ++half) {
      const uint8_t* q = src + 16 + 32 * half;
      for (int shift = 0; shift < 8; shift += 2) {
        for (int part = 0; part < 2; ++part, dst += 16) {
          const uint8_t sc = scales[is++];
          const float dl = d * static_cast<float>(sc & 15);
          const float ml = dmin * static_cast<float>(sc >> 4);
          const uint8_t* qp = q + 16 * part;
          for (int l = 0; l < 16; ++l) {
            dst[l] = dl * static_cast<float>((qp[l] >> shift) & 3) - ml;
          }
        }
      }
    }
  }
}

namespace {

// Q3_K's 16 six-bit scales: low 4 bits in scales[0..7] (low nibbles for 0-7, high nibbles for
// 8-15), high 2 bits in scales[8..11] (scale i uses bits 2*(i/4) of byte 8 + i%4); minus 32.
int q3_k_scale(const uint8_t* s, int i) {
  const int low = i < 8 ? s[i] & 15 : s[i - 8] >> 4;
  const int high = (s[8 + i % 4] >> (2 * (i / 4))) & 3;
  return (low | high << 4) - 32;
}

}  // namespace

// Q3_K, 110 bytes: @0 hmask[32] | @32 qs[64] (low 2 bits) | @96 scales[12] | @108 f16 d.
// Element order as Q2_K; group g (0..7) takes its 3rd bit from bit g of hmask[0..31], and a
// clear bit subtracts 4.
void decode_q3_k(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 110) {
    const uint8_t* hmask = src;
    const uint8_t* scales = src + 96;
    const float d = half_at(src + 108);
    int is = 0;
    int group = 0;
    for (int half = 0; half < 2; ++half) {
      const uint8_t* q = src + 32 + 32 * half;
      for (int shift = 0; shift < 8; shift += 2, ++group) {
        const uint8_t bit = static_cast<uint8_t>(1u << group);
        for (int part = 0; part < 2; ++part, dst += 16) {
          const float dl = d * static_cast<float>(q3_k_scale(scales, is++));
          const uint8_t* qp = q + 16 * part;
          const uint8_t* hp = hmask + 16 * part;
          for (int l = 0; l < 16; ++l) {
            const int v = ((qp[l] >> shift) & 3) - ((hp[l] & bit) ? 0 : 4);
            dst[l] = dl * static_cast<float>(v);
          }
        }
      }
    }
  }
}

namespace {

// get_scale_min_k4: 8 six-bit scales and 8 six-bit mins packed in 12 bytes.
void scale_min_k4(const uint8_t* s, int j, int& sc, int& m) {
  if (j < 4) {
    sc = s[j] & 63;
    m = s[j + 4] & 63;
  } else {
    sc = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
    m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

}  // namespace

// Q4_K, 144 bytes: @0 f16 d | @2 f16 dmin | @4 scales[12] | @16 qs[128]. Four chunks of 64:
// chunk c reads qs[32c..32c+31], low nibbles with scale/min 2c, then high nibbles with 2c+1.
// Value d*sc * q - dmin*m.
void decode_q4_k(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 144) {
    const float d = half_at(src);
    const float dmin = half_at(src + 2);
    const uint8_t* scales = src + 4;
    const uint8_t* q = src + 16;
    for (int c = 0; c < 4; ++c, q += 32, dst += 64) {
      int sc = 0, m = 0;
      scale_min_k4(scales, 2 * c, sc, m);
      const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(m);
      scale_min_k4(scales, 2 * c + 1, sc, m);
      const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(m);
      for (int l = 0; l < 32; ++l) dst[l] = d1 * static_cast<float>(q[l] & 15) - m1;
      for (int l = 0; l < 32; ++l) dst[l + 32] = d2 * static_cast<float>(q[l] >> 4) - m2;
    }
  }
}

// Q5_K, 176 bytes: @0 f16 d | @2 f16 dmin | @4 scales[12] | @16 qh[32] | @48 qs[128].
// As Q4_K; chunk c adds 16 when bit 2c (low half) or 2c+1 (high half) of qh[l] is set.
void decode_q5_k(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 176) {
    const float d = half_at(src);
    const float dmin = half_at(src + 2);
    const uint8_t* scales = src + 4;
    const uint8_t* qh = src + 16;
    const uint8_t* q = src + 48;
    for (int c = 0; c < 4; ++c, q += 32, dst += 64) {
      int sc = 0, m = 0;
      scale_min_k4(scales, 2 * c, sc, m);
      const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(m);
      scale_min_k4(scales, 2 * c + 1, sc, m);
      const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(m);
      const uint8_t u1 = static_cast<uint8_t>(1u << (2 * c)),
                    u2 = static_cast<uint8_t>(2u << (2 * c));
      for (int l = 0; l < 32; ++l) {
        dst[l] = d1 * static_cast<float>((q[l] & 15) + ((qh[l] & u1) ? 16 : 0)) - m1;
      }
      for (int l = 0; l < 32; ++l) {
        dst[l + 32] = d2 * static_cast<float>((q[l] >> 4) + ((qh[l] & u2) ? 16 : 0)) - m2;
      }
    }
  }
}

// Q6_K, 210 bytes: @0 ql[128] (low 4 bits) | @128 qh[64] (high 2 bits) | @192 int8 sc[16] |
// @208 f16 d. Half h (128 elements) uses ql[64h..], qh[32h..], sc[8h..]; for l in 0..31 one
// qh byte feeds the four elements l, l+32, l+64, l+96. Value (d * sc) * (q6 - 32).
void decode_q6_k(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 210) {
    const float d = half_at(src + 208);
    for (int half = 0; half < 2; ++half, dst += 128) {
      const uint8_t* ql = src + 64 * half;
      const uint8_t* qh = src + 128 + 32 * half;
      const int8_t* sc = reinterpret_cast<const int8_t*>(src + 192 + 8 * half);
      for (int l = 0; l < 32; ++l) {
        const int is = l / 16;
        const int q1 = ((ql[l] & 15) | ((qh[l] >> 0) & 3) << 4) - 32;
        const int q2 = ((ql[l + 32] & 15) | ((qh[l] >> 2) & 3) << 4) - 32;
        const int q3 = ((ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4) - 32;
        const int q4 = ((ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4) - 32;
        dst[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
        dst[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
        dst[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
        dst[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
      }
    }
  }
}

// Q8_K, 292 bytes: @0 f32 d | @4 int8 qs[256] | @260 int16 bsums[16] (unused). Value d * q.
void decode_q8_k(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 292, dst += 256) {
    const float d = std::bit_cast<float>(load_u32(src));
    const uint8_t* qs = src + 4;
    for (int j = 0; j < 256; ++j) dst[j] = d * static_cast<float>(static_cast<int8_t>(qs[j]));
  }
}

namespace {

// Trit n (0..4) of a base-3 packed byte: multiplying by 3^n (mod 256) brings it to the top,
// and (byte * 3) >> 8 reads it as 0, 1 or 2.
inline float trit_value(uint8_t packed, uint8_t pow3, float d) {
  const uint8_t q = static_cast<uint8_t>(packed * pow3);
  const int trit = (q * 3) >> 8;
  return static_cast<float>(trit - 1) * d;
}

constexpr uint8_t kPow3[5] = {1, 3, 9, 27, 81};

}  // namespace

// TQ1_0, 54 bytes: @0 qs[48] (5 trits per byte) | @48 qh[4] (4 trits per byte) | @52 f16 d.
// Output: trits 0..4 of qs[0..31], then trits 0..4 of qs[32..47], then trits 0..3 of qh[0..3].
void decode_tq1_0(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 54) {
    const float d = half_at(src + 52);
    for (int t = 0; t < 5; ++t, dst += 32) {
      for (int m = 0; m < 32; ++m) dst[m] = trit_value(src[m], kPow3[t], d);
    }
    for (int t = 0; t < 5; ++t, dst += 16) {
      for (int m = 0; m < 16; ++m) dst[m] = trit_value(src[32 + m], kPow3[t], d);
    }
    for (int t = 0; t < 4; ++t, dst += 4) {
      for (int m = 0; m < 4; ++m) dst[m] = trit_value(src[48 + m], kPow3[t], d);
    }
  }
}

// TQ2_0, 66 bytes: @0 qs[64] (2 bits per element) | @64 f16 d. For each 32-byte half, the
// four bit pairs of its bytes in turn. Value (q - 1) * d.
void decode_tq2_0(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 66) {
    const float d = half_at(src + 64);
    for (int j = 0; j < 64; j += 32) {
      for (int shift = 0; shift < 8; shift += 2, dst += 32) {
        for (int m = 0; m < 32; ++m) {
          dst[m] = static_cast<float>(((src[j + m] >> shift) & 3) - 1) * d;
        }
      }
    }
  }
}

}  // namespace gguf::decode
