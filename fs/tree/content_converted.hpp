// Another content's floats in a different float type: quantized tensors decoded to float32 and
// then rounded to F16 or BF16 (-o hf_dtype=...), and BF16 widened to float32 for data.npy (numpy
// has no bfloat16).
#pragma once

#include <memory>

#include "fs/tree/content.hpp"
#include "gguf/hf/hf_view.hpp"

namespace gguffs {

class ConvertedFloats final : public FileContent {
 public:
  // inner holds little-endian values of type from.
  ConvertedFloats(std::shared_ptr<const FileContent> inner, gguf::hf::Dtype from,
                  gguf::hf::Dtype to);

  uint64_t size() const override { return elements_ * gguf::hf::dtype_size(to_); }
  void read(uint64_t off, size_t len, ReadBuffer& out) const override;

 private:
  std::shared_ptr<const FileContent> inner_;
  gguf::hf::Dtype from_;
  gguf::hf::Dtype to_;
  uint64_t elements_;
};

}  // namespace gguffs
