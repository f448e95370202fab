#include "gguf/hf/encode_float.hpp"

#include <cstring>

namespace gguf::hf {

namespace {

uint32_t bits_of(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  return x;
}

// value >> shift, rounded to nearest, ties to even.
uint32_t shift_round_even(uint32_t value, uint32_t shift) {
  const uint32_t kept = value >> shift;
  const uint32_t rest = value & ((1u << shift) - 1);
  const uint32_t halfway = 1u << (shift - 1);
  return kept + (rest > halfway || (rest == halfway && (kept & 1)) ? 1 : 0);
}

}  // namespace

uint16_t fp32_to_fp16(float f) {
  const uint32_t x = bits_of(f);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const uint32_t exponent = (x >> 23) & 0xff;
  const uint32_t mantissa = x & 0x7fffff;
  if (exponent == 0xff)  // infinity, or NaN (kept quiet, with the payload's top bits)
    return static_cast<uint16_t>(sign | 0x7c00 | (mantissa != 0 ? 0x200 | (mantissa >> 13) : 0));
  const int32_t e = static_cast<int32_t>(exponent) - 127 + 15;  // the binary16 exponent field
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00);     // too large: infinity
  if (e <= 0) {
    if (e < -10) return sign;  // below half the smallest subnormal: zero
    // A subnormal: the 24-bit significand scaled to units of 2^-24 (a carry gives the smallest
    // normal, which is right).
    return static_cast<uint16_t>(
        sign | shift_round_even(mantissa | 0x800000, static_cast<uint32_t>(14 - e)));
  }
  // A carry out of the mantissa raises the exponent (up to infinity), which is right.
  const uint32_t h =
      (static_cast<uint32_t>(e) << 10 | mantissa >> 13) +
      ((mantissa & 0x1fff) > 0x1000 || ((mantissa & 0x1fff) == 0x1000 && ((mantissa >> 13) & 1))
           ? 1
           : 0);
  return static_cast<uint16_t>(sign | h);
}

uint16_t fp32_to_bf16(float f) {
  const uint32_t x = bits_of(f);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x40);  // NaN
  return static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

}  // namespace gguf::hf
