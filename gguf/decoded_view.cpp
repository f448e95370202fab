#include "gguf/decoded_view.hpp"

#include <fmt/format.h>

#include "gguf/decode/decode.hpp"
#include "gguf/types.hpp"

namespace gguf {

namespace {

// numpy's dtype for types stored as plain numbers (the byte order character added later), or
// nullptr when the type has none (BF16, quantized).
const char* stored_dtype(uint32_t type_id) {
  switch (type_id) {
    case type_id::F32:
      return "f4";
    case type_id::F16:
      return "f2";
    case type_id::F64:
      return "f8";
    case type_id::I8:
      return "i1";
    case type_id::I16:
      return "i2";
    case type_id::I32:
      return "i4";
    case type_id::I64:
      return "i8";
    default:
      return nullptr;
  }
}

bool is_plain(uint32_t type_id) {
  return stored_dtype(type_id) != nullptr || type_id == type_id::BF16;
}

DecodedView none(std::string reason) {
  DecodedView v;
  v.reason = std::move(reason);
  return v;
}

}  // namespace

DecodedView decoded_view(const Model& model, const TensorInfo& tensor) {
  const auto type = tensor_type(tensor.type_id);
  if (!type) return none(fmt::format("unknown type id {}", tensor.type_id));
  if (!tensor.type_known || type->block_size == 0)
    return none(fmt::format("type id {} was removed from ggml", tensor.type_id));
  if (!can_decode(tensor.type_id))
    return none(fmt::format("{} has no ggml dequantizer", type->name));
  // Only the plain types have a known byte swap; the fields inside quantized blocks are not
  // documented for big-endian files.
  if (model.big_endian && !is_plain(tensor.type_id))
    return none(fmt::format("{} blocks in a big-endian file", type->name));
  if (tensor.ne[0] % type->block_size != 0)
    return none(fmt::format("row length {} is not a multiple of {}'s block size {}", tensor.ne[0],
                            type->name, type->block_size));
  if (tensor.bytes != 0 && tensor.bytes_present == 0)
    return none("the file holds none of this tensor's data");

  DecodedView v;
  v.available = true;
  if (const char* dtype = stored_dtype(tensor.type_id)) {
    // The stored bytes as they are, zero-copy; numpy swaps big-endian ones itself.
    const char order = type->block_bytes == 1 ? '|' : model.big_endian ? '>' : '<';
    v.npy_dtype = fmt::format("{}{}", order, dtype);
    v.raw_payload = true;
  } else {
    v.npy_dtype = "<f4";
  }
  return v;
}

}  // namespace gguf
