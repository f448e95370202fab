// Whether a tensor gets decoded views (tensors/<name>/data.f32 and data.npy) and what data.npy
// holds. One decision, shared by the info text and the filesystem tree.
#pragma once

#include <string>

#include "gguf/model.hpp"

namespace gguf {

struct DecodedView {
  bool available = false;  // data.f32 and data.npy exist
  // data.npy's numpy dtype: the stored one for F32, F16, F64 and I* ("<f4", "|i1"; ">f4" ... in
  // a big-endian file, whose bytes are served as stored), "<f4" for BF16 and quantized types.
  std::string npy_dtype;
  bool raw_payload = false;  // data.npy's payload is the stored bytes (else: data.f32's bytes)
  std::string reason;        // when not available: why, e.g. "Q8_1 has no ggml dequantizer"
};

DecodedView decoded_view(const Model& model, const TensorInfo& tensor);

}  // namespace gguf
