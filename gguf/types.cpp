#include "gguf/types.hpp"

#include <array>

namespace gguf {

namespace {

constexpr std::array<std::string_view, kValueTypeCount> kValueTypeNames = {
    "UINT8", "INT8",   "UINT16", "INT16",  "UINT32", "INT32",  "FLOAT32",
    "BOOL",  "STRING", "ARRAY",  "UINT64", "INT64",  "FLOAT64"};
constexpr std::array<uint32_t, kValueTypeCount> kValueTypeSizes = {1, 1, 2, 2, 4, 4, 4,
                                                                   1, 0, 0, 8, 8, 8};

// Reference §1.2 (ggml.h enum ggml_type and the type traits in ggml.c).
constexpr std::array<TensorType, kTensorTypeCount> kTensorTypes = {{
    {0, "F32", 1, 4},
    {1, "F16", 1, 2},
    {2, "Q4_0", 32, 18},
    {3, "Q4_1", 32, 20},
    {4, "Q4_2 (removed)", 0, 0},
    {5, "Q4_3 (removed)", 0, 0},
    {6, "Q5_0", 32, 22},
    {7, "Q5_1", 32, 24},
    {8, "Q8_0", 32, 34},
    {9, "Q8_1", 32, 36},  // gguf-py says 40 bytes; ggml's struct is 36 (reference §6.4)
    {10, "Q2_K", 256, 84},
    {11, "Q3_K", 256, 110},
    {12, "Q4_K", 256, 144},
    {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210},
    {15, "Q8_K", 256, 292},
    {16, "IQ2_XXS", 256, 66},
    {17, "IQ2_XS", 256, 74},
    {18, "IQ3_XXS", 256, 98},
    {19, "IQ1_S", 256, 50},
    {20, "IQ4_NL", 32, 18},
    {21, "IQ3_S", 256, 110},
    {22, "IQ2_S", 256, 82},
    {23, "IQ4_XS", 256, 136},
    {24, "I8", 1, 1},
    {25, "I16", 1, 2},
    {26, "I32", 1, 4},
    {27, "I64", 1, 8},
    {28, "F64", 1, 8},
    {29, "IQ1_M", 256, 56},
    {30, "BF16", 1, 2},
    {31, "Q4_0_4_4 (removed)", 0, 0},
    {32, "Q4_0_4_8 (removed)", 0, 0},
    {33, "Q4_0_8_8 (removed)", 0, 0},
    {34, "TQ1_0", 256, 54},
    {35, "TQ2_0", 256, 66},
    {36, "IQ4_NL_4_4 (removed)", 0, 0},
    {37, "IQ4_NL_4_8 (removed)", 0, 0},
    {38, "IQ4_NL_8_8 (removed)", 0, 0},
    {39, "MXFP4", 32, 17},
    {40, "NVFP4", 64, 36},
    {41, "Q1_0", 128, 18},
    {42, "Q2_0", 64, 18},
}};

// gguf-py LlamaFileType (reference §4.5); empty where the value was never assigned.
constexpr std::array<std::string_view, 42> kFileTypeNames = {
    "ALL_F32",         "MOSTLY_F16",    "MOSTLY_Q4_0",   "MOSTLY_Q4_1",      "MOSTLY_Q4_1_SOME_F16",
    "MOSTLY_Q4_2",     "MOSTLY_Q4_3",   "MOSTLY_Q8_0",   "MOSTLY_Q5_0",      "MOSTLY_Q5_1",
    "MOSTLY_Q2_K",     "MOSTLY_Q3_K_S", "MOSTLY_Q3_K_M", "MOSTLY_Q3_K_L",    "MOSTLY_Q4_K_S",
    "MOSTLY_Q4_K_M",   "MOSTLY_Q5_K_S", "MOSTLY_Q5_K_M", "MOSTLY_Q6_K",      "MOSTLY_IQ2_XXS",
    "MOSTLY_IQ2_XS",   "MOSTLY_Q2_K_S", "MOSTLY_IQ3_XS", "MOSTLY_IQ3_XXS",   "MOSTLY_IQ1_S",
    "MOSTLY_IQ4_NL",   "MOSTLY_IQ3_S",  "MOSTLY_IQ3_M",  "MOSTLY_IQ2_S",     "MOSTLY_IQ2_M",
    "MOSTLY_IQ4_XS",   "MOSTLY_IQ1_M",  "MOSTLY_BF16",   "MOSTLY_Q4_0_4_4",  "MOSTLY_Q4_0_4_8",
    "MOSTLY_Q4_0_8_8", "MOSTLY_TQ1_0",  "MOSTLY_TQ2_0",  "MOSTLY_MXFP4_MOE", "MOSTLY_NVFP4",
    "MOSTLY_Q1_0",     "MOSTLY_Q2_0"};

}  // namespace

std::string_view value_type_name(ValueType t) {
  auto i = static_cast<uint32_t>(t);
  return i < kValueTypeCount ? kValueTypeNames[i] : std::string_view("INVALID");
}

uint32_t value_type_size(ValueType t) {
  auto i = static_cast<uint32_t>(t);
  return i < kValueTypeCount ? kValueTypeSizes[i] : 0;
}

bool is_valid_value_type(uint32_t id) {
  return id < kValueTypeCount;
}

std::optional<TensorType> tensor_type(uint32_t id) {
  if (id >= kTensorTypeCount) return std::nullopt;
  return kTensorTypes[id];
}

bool is_usable_tensor_type(uint32_t id) {
  return id < kTensorTypeCount && kTensorTypes[id].block_size;
}

std::optional<std::string_view> file_type_name(uint64_t file_type) {
  if (file_type >= kFileTypeNames.size()) return std::nullopt;
  return kFileTypeNames[file_type];
}

}  // namespace gguf
