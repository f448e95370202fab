#include "gguf/npy.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace gguf {

namespace {

// "(3, 48)", "(7,)" for one dimension, "()" for a scalar, as numpy's repr of a tuple.
std::string shape_tuple(const std::vector<uint64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

constexpr size_t kPreamble = 10;  // magic (6) + version (2) + header length (2)
constexpr size_t kAlign = 64;

}  // namespace

std::string npy_header(std::string_view descr, const std::vector<uint64_t>& shape) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr,
                                 shape_tuple(shape));
  // Pad with spaces; the newline is the last byte of the header.
  const size_t unpadded = kPreamble + dict.size() + 1;
  dict.append((kAlign - unpadded % kAlign) % kAlign, ' ');
  dict.push_back('\n');
  if (dict.size() > 0xFFFF) throw std::length_error("npy header longer than version 1.0 allows");

  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(dict.size() & 0xFF));
  out.push_back(static_cast<char>(dict.size() >> 8));
  out += dict;
  return out;
}

std::vector<uint64_t> numpy_shape(const TensorInfo& tensor) {
  const uint32_t n_dims = tensor.n_dims < tensor.ne.size() ? tensor.n_dims : 4;
  std::vector<uint64_t> shape;
  shape.reserve(n_dims);
  for (uint32_t i = n_dims; i-- > 0;) shape.push_back(tensor.ne[i]);
  return shape;
}

}  // namespace gguf
