// Dispatch: one row per ggml type id -> its kernel; nullptr where ggml has no to_float
// (Q8_1, the removed ids) or the id is unknown.
#include "gguf/decode/decode.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "gguf/decode/decode_internal.hpp"
#include "gguf/types.hpp"

namespace gguf {

namespace {

using decode::Kernel;

constexpr std::array<Kernel, kTensorTypeCount> kKernels = [] {
  namespace t = type_id;
  std::array<Kernel, kTensorTypeCount> k{};
  k[t::F32] = decode::decode_f32;
  k[t::F16] = decode::decode_f16;
  k[t::Q4_0] = decode::decode_q4_0;
  k[t::Q4_1] = decode::decode_q4_1;
  k[t::Q5_0] = decode::decode_q5_0;
  k[t::Q5_1] = decode::decode_q5_1;
  k[t::Q8_0] = decode::decode_q8_0;
  k[t::Q2_K] = decode::decode_q2_k;
  k[t::Q3_K] = decode::decode_q3_k;
  k[t::Q4_K] = decode::decode_q4_k;
  k[t::Q5_K] = decode::decode_q5_k;
  k[t::Q6_K] = decode::decode_q6_k;
  k[t::Q8_K] = decode::decode_q8_k;
  k[t::IQ2_XXS] = decode::decode_iq2_xxs;
  k[t::IQ2_XS] = decode::decode_iq2_xs;
  k[t::IQ3_XXS] = decode::decode_iq3_xxs;
  k[t::IQ1_S] = decode::decode_iq1_s;
  k[t::IQ4_NL] = decode::decode_iq4_nl;
  k[t::IQ3_S] = decode::decode_iq3_s;
  k[t::IQ2_S] = decode::decode_iq2_s;
  k[t::IQ4_XS] = decode::decode_iq4_xs;
  k[t::I8] = decode::decode_i8;
  k[t::I16] = decode::decode_i16;
  k[t::I32] = decode::decode_i32;
  k[t::I64] = decode::decode_i64;
  k[t::F64] = decode::decode_f64;
  k[t::IQ1_M] = decode::decode_iq1_m;
  k[t::BF16] = decode::decode_bf16;
  k[t::TQ1_0] = decode::decode_tq1_0;
  k[t::TQ2_0] = decode::decode_tq2_0;
  k[t::MXFP4] = decode::decode_mxfp4;
  k[t::NVFP4] = decode::decode_nvfp4;
  k[t::Q1_0] = decode::decode_q1_0;
  k[t::Q2_0] = decode::decode_q2_0;
  return k;
}();

Kernel kernel_for(uint32_t type_id) {
  return type_id < kTensorTypeCount ? kKernels[type_id] : nullptr;
}

[[noreturn]] void throw_cannot_decode(uint32_t type_id) {
  const auto type = tensor_type(type_id);
  throw std::invalid_argument("cannot decode tensor type " + std::to_string(type_id) +
                              (type ? " (" + std::string(type->name) + ")" : std::string()));
}

// Bytes per element of the plain types, 0 for the rest.
size_t plain_element_bytes(uint32_t type_id) {
  namespace t = type_id;
  switch (type_id) {
    case t::I8:
      return 1;
    case t::F16:
    case t::BF16:
    case t::I16:
      return 2;
    case t::F32:
    case t::I32:
      return 4;
    case t::F64:
    case t::I64:
      return 8;
    default:
      return 0;
  }
}

}  // namespace

bool can_decode(uint32_t type_id) {
  return kernel_for(type_id) != nullptr;
}

void decode_blocks(uint32_t type_id, const uint8_t* src, size_t n_blocks, float* dst) {
  const Kernel kernel = kernel_for(type_id);
  if (kernel == nullptr) throw_cannot_decode(type_id);
  kernel(src, n_blocks, dst);
}

void decode_blocks_big_endian(uint32_t type_id, const uint8_t* src, size_t n_blocks, float* dst) {
  const size_t width = plain_element_bytes(type_id);
  if (width == 0) {
    throw std::invalid_argument("big-endian decoding is only defined for plain types, not type " +
                                std::to_string(type_id));
  }
  // Swap a chunk into little-endian order on the stack, then reuse the little-endian kernel.
  constexpr size_t kChunkBytes = 4096;
  alignas(8) uint8_t swapped[kChunkBytes];
  const size_t per_chunk = kChunkBytes / width;
  const Kernel kernel = kernel_for(type_id);
  for (size_t done = 0; done < n_blocks;) {
    const size_t count = std::min(per_chunk, n_blocks - done);
    const uint8_t* in = src + done * width;
    for (size_t i = 0; i < count; ++i) {
      std::reverse_copy(in + i * width, in + (i + 1) * width, swapped + i * width);
    }
    kernel(swapped, count, dst + done);
    done += count;
  }
}

}  // namespace gguf
