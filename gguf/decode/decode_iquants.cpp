// The i-quants: 256-element super-blocks whose 8-element groups are indices into ggml's
// lattice grids (decode_tables.cpp), with sign bytes and 4-bit or 3-bit group scales
// (reference §1.4). Same float32 operations, same order, as ggml.
#include <cstring>

#include "gguf/decode/decode_internal.hpp"
#include "gguf/decode/decode_tables.hpp"

namespace gguf::decode {

namespace {

// Multiplies by -1 or +1 (as ggml does; not a negation, which would differ on NaN).
inline float signed_by(float v, uint8_t signs, int j) {
  return v * ((signs & kMaskIq2xs[j]) ? -1.0f : 1.0f);
}

// The IQ2 types' scale of a group from its 4-bit field s: d * (0.5 + s) * 0.25.
inline float iq2_scale(float d, uint32_t s) {
  return d * (0.5f + static_cast<float>(s)) * 0.25f;
}

// Eight outputs: db * grid[j] * sign_j.
inline void grid8(float* y, float db, const uint8_t* grid, uint8_t signs) {
  for (int j = 0; j < 8; ++j) y[j] = signed_by(db * static_cast<float>(grid[j]), signs, j);
}

}  // namespace

// IQ2_XXS, 66 bytes: @0 f16 d | @2 eight 8-byte groups, each two u32: a0 holds four grid
// indices (one byte each), a1 holds four 7-bit sign indices (bits 7l..7l+6) and a 4-bit scale
// (bits 28-31). db = d * (0.5 + scale) * 0.25.
void decode_iq2_xxs(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 66) {
    const float d = half_at(src);
    for (int ib = 0; ib < 8; ++ib) {
      const uint8_t* g = src + 2 + 8 * ib;
      const uint32_t a1 = load_u32(g + 4);
      const float db = iq2_scale(d, a1 >> 28);
      for (int l = 0; l < 4; ++l, dst += 8) {
        grid8(dst, db, kIq2xxsGrid[g[l]], kSignsIq2xs[(a1 >> (7 * l)) & 127]);
      }
    }
  }
}

// IQ2_XS, 74 bytes: @0 f16 d | @2 u16 qs[32] (9-bit grid index, 7-bit sign index) |
// @66 scales[8] (two 4-bit scales per 32 elements: low for groups 0-1, high for 2-3).
void decode_iq2_xs(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 74) {
    const float d = half_at(src);
    const uint8_t* scales = src + 66;
    for (int ib = 0; ib < 8; ++ib) {
      const float db[2] = {iq2_scale(d, scales[ib] & 15), iq2_scale(d, scales[ib] >> 4)};
      for (int l = 0; l < 4; ++l, dst += 8) {
        const uint16_t v = load_u16(src + 2 + 2 * (4 * ib + l));
        grid8(dst, db[l / 2], kIq2xsGrid[v & 511], kSignsIq2xs[v >> 9]);
      }
    }
  }
}

// IQ2_S, 82 bytes: @0 f16 d | @2 qs[32] (grid index low bytes) | @34 signs[32] (raw sign
// bytes) | @66 qh[8] (2 high index bits per group) | @74 scales[8] (as IQ2_XS).
void decode_iq2_s(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 82) {
    const float d = half_at(src);
    const uint8_t* qs = src + 2;
    const uint8_t* signs = src + 34;
    const uint8_t* qh = src + 66;
    const uint8_t* scales = src + 74;
    for (int ib = 0; ib < 8; ++ib) {
      const float db[2] = {iq2_scale(d, scales[ib] & 15), iq2_scale(d, scales[ib] >> 4)};
      for (int l = 0; l < 4; ++l, dst += 8) {
        const int index = qs[4 * ib + l] | ((qh[ib] >> (2 * l)) & 3) << 8;
        grid8(dst, db[l / 2], kIq2sGrid[index], signs[4 * ib + l]);
      }
    }
  }
}

namespace {

// Eight outputs from two 4-byte grid entries sharing one sign byte.
inline void grid4x2(float* y, float db, const uint8_t* g1, const uint8_t* g2, uint8_t signs) {
  uint8_t grid[8];
  std::memcpy(grid, g1, 4);
  std::memcpy(grid + 4, g2, 4);
  grid8(y, db, grid, signs);
}

}  // namespace

// IQ3_XXS, 98 bytes: @0 f16 d | @2 qs[64] (one grid index byte per 4 elements) | @66 eight
// u32 words: four 7-bit sign indices and a 4-bit scale (bits 28-31); db = d * (0.5+s) * 0.5.
void decode_iq3_xxs(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 98) {
    const float d = half_at(src);
    for (int ib = 0; ib < 8; ++ib) {
      const uint8_t* qs = src + 2 + 8 * ib;
      const uint32_t w = load_u32(src + 66 + 4 * ib);
      const float db = d * (0.5f + static_cast<float>(w >> 28)) * 0.5f;
      for (int l = 0; l < 4; ++l, dst += 8) {
        grid4x2(dst, db, kIq3xxsGrid[qs[2 * l]], kIq3xxsGrid[qs[2 * l + 1]],
                kSignsIq2xs[(w >> (7 * l)) & 127]);
      }
    }
  }
}

// IQ3_S, 110 bytes: @0 f16 d | @2 qs[64] (grid index low bytes) | @66 qh[8] (9th index bits)
// | @74 signs[32] (raw sign bytes) | @106 scales[4] (4-bit, low nibble first);
// db = d * (1 + 2*scale).
void decode_iq3_s(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 110) {
    const float d = half_at(src);
    const uint8_t* qh = src + 66;
    const uint8_t* signs = src + 74;
    const uint8_t* scales = src + 106;
    for (int ib = 0; ib < 8; ++ib) {
      const uint8_t* qs = src + 2 + 8 * ib;
      const int scale = (scales[ib / 2] >> (4 * (ib % 2))) & 15;
      const float db = d * static_cast<float>(1 + 2 * scale);
      for (int l = 0; l < 4; ++l, dst += 8) {
        const int i1 = qs[2 * l] | ((qh[ib] >> (2 * l)) & 1) << 8;
        const int i2 = qs[2 * l + 1] | ((qh[ib] >> (2 * l + 1)) & 1) << 8;
        grid4x2(dst, db, kIq3sGrid[i1], kIq3sGrid[i2], signs[4 * ib + l]);
      }
    }
  }
}

namespace {

constexpr float kIq1Delta = 0.125f;  // IQ1S_DELTA = IQ1M_DELTA

// Eight outputs: dl * (grid[j] + delta), grid values in {-1, 0, 1}.
inline void grid8_delta(float* y, float dl, const int8_t* grid, float delta) {
  for (int j = 0; j < 8; ++j) y[j] = dl * (static_cast<float>(grid[j]) + delta);
}

}  // namespace

// IQ1_S, 50 bytes: @0 f16 d | @2 qs[32] (grid index low bytes) | @34 u16 qh[8]: per 32
// elements, 3 high index bits per group (bits 3l..3l+2), a 3-bit scale (bits 12-14) and the
// delta's sign (bit 15). dl = d * (2*scale + 1).
void decode_iq1_s(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 50) {
    const float d = half_at(src);
    const uint8_t* qs = src + 2;
    for (int ib = 0; ib < 8; ++ib) {
      const uint16_t h = load_u16(src + 34 + 2 * ib);
      const float dl = d * static_cast<float>(2 * ((h >> 12) & 7) + 1);
      const float delta = (h & 0x8000) ? -kIq1Delta : kIq1Delta;
      for (int l = 0; l < 4; ++l, dst += 8) {
        const int index = qs[4 * ib + l] | ((h >> (3 * l)) & 7) << 8;
        grid8_delta(dst, dl, kIq1sGrid[index], delta);
      }
    }
  }
}

// IQ1_M, 56 bytes: @0 qs[32] | @32 qh[16] (per group: 3 high index bits, then the delta's
// sign bit; low nibble for even groups, high for odd) | @48 u16 sc[4]: two 3-bit scales per 16
// elements in bits 6*(ib%2)..+5, and the fp16 d spread over the four top nibbles.
void decode_iq1_m(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 56) {
    const uint8_t* qs = src;
    const uint8_t* qh = src + 32;
    uint16_t sc[4];
    for (int k = 0; k < 4; ++k) sc[k] = load_u16(src + 48 + 2 * k);
    const uint16_t d_bits = static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) |
                                                  ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000));
    const float d = half_to_float(d_bits);
    for (int ib = 0; ib < 8; ++ib) {
      const int s = sc[ib / 2] >> (6 * (ib % 2));
      const float dl[2] = {d * static_cast<float>(2 * (s & 7) + 1),
                           d * static_cast<float>(2 * ((s >> 3) & 7) + 1)};
      for (int l = 0; l < 4; ++l, dst += 8) {
        const uint8_t h = qh[2 * ib + l / 2];
        const int nibble = (l % 2) ? h >> 4 : h & 15;
        const int index = qs[4 * ib + l] | (nibble & 7) << 8;
        const float delta = (nibble & 8) ? -kIq1Delta : kIq1Delta;
        grid8_delta(dst, dl[l / 2], kIq1sGrid[index], delta);
      }
    }
  }
}

// IQ4_XS, 136 bytes: @0 f16 d | @2 u16 scales_h (2 high scale bits per 32 elements) |
// @4 scales_l[4] (4 low scale bits, low nibble first) | @8 qs[128]; each 32 elements read
// 16 bytes as IQ4_NL does. dl = d * (scale - 32).
void decode_iq4_xs(const uint8_t* src, size_t n, float* dst) {
  for (size_t b = 0; b < n; ++b, src += 136) {
    const float d = half_at(src);
    const uint16_t scales_h = load_u16(src + 2);
    const uint8_t* scales_l = src + 4;
    for (int ib = 0; ib < 8; ++ib, dst += 32) {
      const int ls = ((scales_l[ib / 2] >> (4 * (ib % 2))) & 15) | ((scales_h >> (2 * ib)) & 3)
                                                                       << 4;
      const float dl = d * static_cast<float>(ls - 32);
      const uint8_t* qs = src + 8 + 16 * ib;
      for (int j = 0; j < 16; ++j) {
        dst[j] = dl * static_cast<float>(kValuesIq4nl[qs[j] & 15]);
        dst[j + 16] = dl * static_cast<float>(kValuesIq4nl[qs[j] >> 4]);
      }
    }
  }
}

}  // namespace gguf::decode
