#include "fs/tree/content_converted.hpp"

#include <cstring>
#include <vector>

#include "gguf/decode/decode.hpp"
#include "gguf/hf/encode_float.hpp"

namespace gguffs {

namespace {

using gguf::hf::Dtype;

float load(Dtype d, const uint8_t* p) {
  if (d == Dtype::F32) {
    float f;
    std::memcpy(&f, p, sizeof f);
    return f;
  }
  const auto h = static_cast<uint16_t>(p[0] | p[1] << 8);
  return d == Dtype::F16 ? gguf::fp16_to_fp32(h) : gguf::bf16_to_fp32(h);
}

void store(Dtype d, float f, uint8_t* p) {
  if (d == Dtype::F32) {
    std::memcpy(p, &f, sizeof f);
    return;
  }
  const uint16_t h = d == Dtype::F16 ? gguf::hf::fp32_to_fp16(f) : gguf::hf::fp32_to_bf16(f);
  p[0] = static_cast<uint8_t>(h & 0xff);
  p[1] = static_cast<uint8_t>(h >> 8);
}

}  // namespace

ConvertedFloats::ConvertedFloats(std::shared_ptr<const FileContent> inner, Dtype from, Dtype to)
    : inner_(std::move(inner)),
      from_(from),
      to_(to),
      elements_(inner_->size() / gguf::hf::dtype_size(from)) {}

void ConvertedFloats::read(uint64_t off, size_t len, ReadBuffer& out) const {
  const size_t n = clamp(off, len, size());
  if (n == 0) return;
  const size_t in_size = gguf::hf::dtype_size(from_);
  const size_t out_size = gguf::hf::dtype_size(to_);
  const uint64_t first = off / out_size;
  const uint64_t end = (off + n + out_size - 1) / out_size;
  const auto count = static_cast<size_t>(end - first);

  // The inner values covering the request, read whole (file pieces resolved with pread).
  ReadBuffer inner(count * in_size);
  inner_->read(first * in_size, count * in_size, inner);
  thread_local std::vector<uint8_t> values;
  thread_local std::vector<uint8_t> converted;
  values.resize(count * in_size);
  converted.resize(count * out_size);
  inner.copy_to(values.data());
  for (size_t i = 0; i < count; ++i)
    store(to_, load(from_, values.data() + i * in_size), converted.data() + i * out_size);
  std::memcpy(out.add_scratch(n), converted.data() + (off - first * out_size), n);
}

}  // namespace gguffs
