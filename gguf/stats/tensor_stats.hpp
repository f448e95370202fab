// tensors/<name>/stats: figures over a tensor's decoded values (float32, decoded as ggml does),
// llama.cpp's verdict on its bytes (gguf/validate) and a 16-bin histogram.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "gguf/model.hpp"
#include "gguf/validate/validate.hpp"

namespace gguf {

struct TensorStats {
  uint64_t elements = 0;
  bool checked = false;  // the verdict was computed (false in big-endian files)
  DataVerdict verdict;
  bool decoded = false;     // the value figures below exist (the type decodes)
  std::string not_decoded;  // why not, when !decoded
  uint64_t nan = 0, inf = 0, zeros = 0, finite = 0;
  // Over the finite values (min, max and absmax are values of the tensor, as float32).
  float min = 0, max = 0, absmax = 0;
  double mean = 0, std = 0;  // std: population standard deviation (divided by n)
  // Finite values in 16 equal bins from min to max; bin i holds [min + i*w, min + (i+1)*w), the
  // last one also max. When min == max every value is in bin 0.
  std::array<uint64_t, 16> histogram{};
};

// Reads the tensor from model's file twice (figures, then histogram and std), a block run at a
// time. The tensor's bytes must all be present. Throws FormatError(io) on a read error.
TensorStats compute_tensor_stats(const Model& model, const TensorInfo& tensor);

// One "key: value" per line, as info is written:
//   elements, nan, inf, zeros, min, max, mean, std, absmax, invalid, histogram.
std::string render_tensor_stats(const TensorStats& stats);

}  // namespace gguf
