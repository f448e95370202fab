// Dequantizers: every ggml tensor type that ggml can turn into float32, decoded to float32 bit
// for bit as ggml's to_float does it (reference §1.4 and §5).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gguf {

// True when decode_blocks can decode this ggml type id (false for Q8_1, removed and unknown ids).
bool can_decode(uint32_t type_id);

// Decodes n_blocks consecutive blocks of type_id from src (n_blocks * block_bytes bytes,
// little-endian) into dst (n_blocks * block_size floats); sizes as tensor_type(id) gives them.
// Throws std::invalid_argument for a type that cannot be decoded.
void decode_blocks(uint32_t type_id, const uint8_t* src, size_t n_blocks, float* dst);

// For the plain types (F32, F16, BF16, F64, I8, I16, I32, I64) of a big-endian file: the same,
// with each element's bytes swapped first. Throws std::invalid_argument for any other type.
void decode_blocks_big_endian(uint32_t type_id, const uint8_t* src, size_t n_blocks, float* dst);

// IEEE binary16 -> binary32, exact (subnormals kept, NaN quieted with payload << 13, like ggml).
float fp16_to_fp32(uint16_t h);
// bfloat16 -> binary32: the bits shifted left by 16, NaN payloads kept.
float bf16_to_fp32(uint16_t h);

}  // namespace gguf
