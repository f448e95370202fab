// A parsed GGUF file: header facts, metadata in file order and tensor infos in file order.
// Immutable once parsed; string_views point into header bytes the Model owns.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/source/source.hpp"
#include "gguf/value.hpp"

namespace gguf {

struct MetadataEntry {
  std::string_view key;  // exact bytes of the key
  Value value;
  uint64_t file_offset = 0;  // where the key's length field starts
};

struct TensorInfo {
  std::string_view name;  // exact bytes of the name
  uint32_t n_dims = 0;
  std::array<uint64_t, 4> ne{1, 1, 1, 1};  // GGUF order: ne[0] is the innermost (row length)
  uint32_t type_id = 0;
  uint64_t offset = 0;         // from the start of the data section, as stored
  uint64_t file_offset = 0;    // data_offset + offset
  uint64_t elements = 0;       // product of ne (checked)
  uint64_t bytes = 0;          // byte size; for an unknown type, the gap to the next tensor or EOF
  uint64_t bytes_present = 0;  // how many of those bytes the file holds (< bytes: partial file)
  bool type_known = true;      // false: unknown or removed type id, bytes is a guess
  uint64_t info_offset = 0;    // where the tensor info starts in the file
  std::vector<std::string> warnings;  // one line each, e.g. "data runs past the end of the file"

  bool data_complete() const { return bytes_present == bytes; }
};

class Model {
 public:
  std::shared_ptr<ByteSource> source;
  uint32_t version = 3;
  bool big_endian = false;
  uint64_t file_size = 0;
  uint64_t n_kv = 0;
  uint64_t n_tensors = 0;
  uint64_t alignment = 32;
  uint64_t data_offset = 0;  // start of the data section (aligned end of the tensor infos)
  std::vector<MetadataEntry> metadata;
  std::vector<TensorInfo> tensors;
  // Every warning about the file, each naming the key or tensor: "tensor 'x': ...".
  std::vector<std::string> warnings;

  Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model();

  // First entry with this key, or nullptr.
  const MetadataEntry* find(std::string_view key) const;
  // The bytes of e's value as this model's header holds them (after the type id), exact
  // whatever the type or byte order. e must be one of metadata.
  std::string_view stored_value(const MetadataEntry& e) const;
  // Bytes of tensor data the file lacks (partial download), summed over tensors.
  uint64_t missing_bytes() const;
  const std::string& name() const { return source->name(); }

  // Owned copy of the bytes [0, header_size) read while parsing; views point here.
  // (Set by the parser; an anonymous mapping that only ever holds what was read, or the
  // source's own bytes in memory, kept alive by header_lender.)
  const uint8_t* header_bytes = nullptr;
  size_t header_capacity = 0;  // of the mapping; 0 when the bytes are lent (header_lender)
  std::shared_ptr<const void> header_lender;
};

using ModelPtr = std::shared_ptr<const Model>;

}  // namespace gguf
