// ggml's dequantization lookup tables (reference §1.5). The grids are generated from the
// reference dumps into decode_tables.cpp; the sign tables are small enough to compute.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace gguf::decode {

// Grid entries as bytes in memory order: byte j of entry i is kXxxGrid[i][j].
extern const uint8_t kIq2xxsGrid[256][8];
extern const uint8_t kIq2xsGrid[512][8];
extern const uint8_t kIq2sGrid[1024][8];
extern const uint8_t kIq3xxsGrid[256][4];
extern const uint8_t kIq3sGrid[512][4];
extern const int8_t kIq1sGrid[2048][8];  // values in {-1, 0, +1}
extern const int8_t kValuesIq4nl[16];
extern const int8_t kValuesFp4[16];  // E2M1 values doubled (MXFP4, NVFP4)

// ksigns_iq2xs: 7 stored sign bits plus an 8th that makes the count of minus signs even.
inline constexpr std::array<uint8_t, 128> kSignsIq2xs = [] {
  std::array<uint8_t, 128> t{};
  for (unsigned i = 0; i < 128; ++i) t[i] = static_cast<uint8_t>(i | (std::popcount(i) & 1) << 7);
  return t;
}();

// kmask_iq2xs: bit j of a sign byte belongs to element j.
inline constexpr std::array<uint8_t, 8> kMaskIq2xs = {1, 2, 4, 8, 16, 32, 64, 128};

}  // namespace gguf::decode
