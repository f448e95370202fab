// NumPy .npy files (format version 1.0): the header that goes in front of a tensor's payload so
// that numpy.load(path, mmap_mode='r') maps the tensor with its dtype and shape.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/model.hpp"

namespace gguf {

// The header of a C-order .npy v1.0 file: "\x93NUMPY", version 1.0, the little-endian header
// length, then "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 48), }" padded with
// spaces and a final '\n' so that the whole header is a multiple of 64 bytes long.
// descr is a numpy dtype string ("<f4", "|i1", ">f2"); shape is in numpy order (outermost
// first). Throws std::length_error when the dict does not fit v1.0's 16-bit length.
std::string npy_header(std::string_view descr, const std::vector<uint64_t>& shape);

// The tensor's shape in numpy order: ne reversed (ne[0], the row length, comes last).
std::vector<uint64_t> numpy_shape(const TensorInfo& tensor);

}  // namespace gguf
