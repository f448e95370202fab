// The ggml tensor types and the GGUF metadata value types: one table each, which drives every
// size computation, every printed name and the choice of decoder.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gguf {

// GGUF metadata value types (gguf.h `enum gguf_type`). The numbers are the on-disk ids.
enum class ValueType : uint32_t {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
};
inline constexpr uint32_t kValueTypeCount = 13;

// "UINT32", "STRING", "ARRAY" ... as gguf-py's GGUFValueType names them.
std::string_view value_type_name(ValueType t);
// Size on disk of one scalar of type t; 0 for STRING and ARRAY (variable length).
uint32_t value_type_size(ValueType t);
bool is_valid_value_type(uint32_t id);

// One row of ggml's type table (reference §1.2).
struct TensorType {
  uint32_t id;
  std::string_view name;  // uppercase, as gguf-py and llama.cpp print it: "Q4_K", "IQ2_XXS"
  uint32_t block_size;    // elements per block; 0 for removed ids
  uint32_t block_bytes;   // bytes per block; 0 for removed ids
};

// Every id 0..42 has a row; removed ids (4, 5, 31-33, 36-38) have block_size 0 and a name such
// as "Q4_2 (removed)". Returns nullopt for ids ggml has never assigned (>= 43).
std::optional<TensorType> tensor_type(uint32_t id);
// True when the id is assigned and not removed, i.e. its sizes are known.
bool is_usable_tensor_type(uint32_t id);
inline constexpr uint32_t kTensorTypeCount = 43;

namespace type_id {
inline constexpr uint32_t F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8,
                          Q8_1 = 9, Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14,
                          Q8_K = 15, IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19,
                          IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22, IQ4_XS = 23, I8 = 24, I16 = 25,
                          I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29, BF16 = 30, TQ1_0 = 34,
                          TQ2_0 = 35, MXFP4 = 39, NVFP4 = 40, Q1_0 = 41, Q2_0 = 42;
}

// gguf-py LlamaFileType name for a general.file_type value ("MOSTLY_Q4_K_M"), or nullopt.
std::optional<std::string_view> file_type_name(uint64_t file_type);

}  // namespace gguf
