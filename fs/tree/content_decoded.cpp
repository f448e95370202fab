#include "fs/tree/content_decoded.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "fs/fuse/truncation_guard.hpp"
#include "gguf/decode/decode.hpp"
#include "gguf/types.hpp"

namespace gguffs {

namespace {

// Stored bytes read and decoded per step: bounds the memory a request uses beside its reply.
constexpr size_t kStepBytes = 64 * 1024;

// Per-thread buffers, reused by every request a FUSE thread serves.
struct Buffers {
  std::vector<uint8_t> stored;  // the blocks' bytes as read from the file
  std::vector<float> floats;    // decoded values that cannot go straight to the reply
};

Buffers& buffers() {
  thread_local Buffers b;
  return b;
}

[[noreturn]] void io_error(const char* what) {
  throw std::system_error(EIO, std::generic_category(), what);
}

}  // namespace

DecodedFloats::DecodedFloats(std::shared_ptr<const gguf::ByteSource> source,
                             const gguf::TensorInfo& tensor, bool big_endian)
    : source_(std::move(source)),
      file_offset_(tensor.file_offset),
      present_(std::min(tensor.bytes_present, tensor.bytes)),
      elements_(tensor.elements),
      type_id_(tensor.type_id),
      big_endian_(big_endian) {
  const auto type = gguf::tensor_type(tensor.type_id);
  if (!type || type->block_size == 0 || !gguf::can_decode(tensor.type_id))
    throw std::invalid_argument("data.f32 of a tensor type that cannot be decoded");
  block_size_ = type->block_size;
  block_bytes_ = type->block_bytes;
}

void DecodedFloats::decode(uint64_t first, uint64_t count, uint8_t* dst) const {
  Buffers& b = buffers();
  const size_t stored = static_cast<size_t>(count * block_bytes_);
  if (b.stored.size() < stored) b.stored.resize(stored);
  if (source_->read_at(file_offset_ + first * block_bytes_, b.stored.data(), stored) != stored)
    throw ModelFileShrank();  // parsing saw these bytes

  const size_t values = static_cast<size_t>(count * block_size_);
  // Straight into the reply when it is aligned for floats; otherwise through a buffer.
  const bool aligned = reinterpret_cast<uintptr_t>(dst) % alignof(float) == 0;
  float* into = aligned ? reinterpret_cast<float*>(dst) : nullptr;
  if (!aligned) {
    if (b.floats.size() < values) b.floats.resize(values);
    into = b.floats.data();
  }
  if (big_endian_)
    gguf::decode_blocks_big_endian(type_id_, b.stored.data(), static_cast<size_t>(count), into);
  else
    gguf::decode_blocks(type_id_, b.stored.data(), static_cast<size_t>(count), into);
  if (!aligned) std::memcpy(dst, into, values * sizeof(float));
}

void DecodedFloats::read(uint64_t off, size_t len, ReadBuffer& out) const {
  const size_t n = clamp(off, len, size());
  if (n == 0) return;
  const uint64_t block_out = uint64_t{block_size_} * sizeof(float);  // output bytes per block
  const uint64_t end_block = (off + n + block_out - 1) / block_out;
  // A short reply would make the kernel believe the file ends early; fail the request instead.
  if (end_block * block_bytes_ > present_) io_error("tensor data missing from the file");

  uint8_t* dst = out.add_scratch(n);
  const uint64_t step_blocks = std::max<uint64_t>(1, kStepBytes / block_bytes_);
  std::vector<uint8_t> partial;  // a block only partly requested (at most the first and last)
  uint64_t pos = off;
  size_t done = 0;
  while (done < n) {
    const uint64_t block = pos / block_out;
    const uint64_t within = pos % block_out;
    const size_t left = n - done;
    if (within != 0 || left < block_out) {
      partial.resize(block_out);
      decode(block, 1, partial.data());
      const size_t take = static_cast<size_t>(std::min<uint64_t>(block_out - within, left));
      std::memcpy(dst + done, partial.data() + within, take);
      done += take;
      pos += take;
      continue;
    }
    const uint64_t count = std::min<uint64_t>(left / block_out, step_blocks);
    decode(block, count, dst + done);
    done += static_cast<size_t>(count * block_out);
    pos += count * block_out;
  }
}

}  // namespace gguffs
