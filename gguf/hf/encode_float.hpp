// float32 -> float16 / bfloat16, rounding to nearest with ties to even, as PyTorch's .to() does:
// the values of quantized tensors when -o hf_dtype=F16 or BF16 asks for them.
#pragma once

#include <cstdint>

namespace gguf::hf {

// IEEE binary16: overflow gives infinity, tiny values become subnormals or zero, NaN stays a
// quiet NaN with the top payload bits.
uint16_t fp32_to_fp16(float f);
// bfloat16: the top 16 bits, rounded; NaN stays a quiet NaN.
uint16_t fp32_to_bf16(float f);

}  // namespace gguf::hf
