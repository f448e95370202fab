// Writes GGUF files: any metadata, any tensors, either byte order, version 2 or 3. Used by the
// tests and benchmarks to build models (valid ones, and deliberately broken ones through the
// escape hatches at the bottom), never by the filesystem itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gguf/types.hpp"
#include "gguf/value.hpp"

namespace gguf {

// A metadata value that owns its data. Arrays keep their elements in one of three compact forms
// (scalar bits, strings, nested arrays) so a 280,000-entry merges array is one vector of strings,
// not 280,000 values.
struct OwnedValue {
  ValueType type = ValueType::UINT8;
  uint64_t bits = 0;  // scalars: the value's bits (floats as their IEEE bits), low bytes used
  std::string str;    // STRING: exact bytes, not necessarily UTF-8

  // ARRAY: exactly one of the three vectors is used, chosen by element_type.
  ValueType element_type = ValueType::UINT8;
  std::vector<uint64_t> scalars;     // fixed-size element types: each element's bits
  std::vector<std::string> strings;  // element_type STRING
  std::vector<OwnedValue> arrays;    // element_type ARRAY: each element is itself an ARRAY

  // Escape hatch: when set, these bytes are written verbatim as the value (after the type id).
  std::optional<std::string> raw_encoding;

  static OwnedValue u8(uint8_t v);
  static OwnedValue i8(int8_t v);
  static OwnedValue u16(uint16_t v);
  static OwnedValue i16(int16_t v);
  static OwnedValue u32(uint32_t v);
  static OwnedValue i32(int32_t v);
  static OwnedValue u64(uint64_t v);
  static OwnedValue i64(int64_t v);
  static OwnedValue f32(float v);
  static OwnedValue f64(double v);
  static OwnedValue boolean(bool v);
  // BOOL with an arbitrary byte (the format stores one byte; readers treat non-zero as true).
  static OwnedValue bool_byte(uint8_t byte);
  static OwnedValue string(std::string v);
  // A scalar of type t with the given bits (the low value_type_size(t) bytes are written).
  static OwnedValue scalar(ValueType t, uint64_t bits);
  // An array of fixed-size scalars, each given by its bits as in scalar().
  static OwnedValue scalar_array(ValueType element_type, std::vector<uint64_t> bits);
  static OwnedValue string_array(std::vector<std::string> v);
  // An array whose elements are arrays (nested arrays, which the spec allows).
  static OwnedValue array_of_arrays(std::vector<OwnedValue> elements);
  static OwnedValue i32_array(const std::vector<int32_t>& v);
  static OwnedValue u32_array(const std::vector<uint32_t>& v);
  static OwnedValue f32_array(const std::vector<float>& v);
  // A value of type t whose encoding is exactly these bytes (for malformed files).
  static OwnedValue raw(ValueType t, std::string encoding);
  // A parsed value copied out of its model (e.g. to write a vocabulary into another file).
  static OwnedValue copy_of(const Value& v);

  uint64_t element_count() const;
};

class Writer {
 public:
  struct Options {
    uint32_t version = 3;     // written as is: 1, 0 or 4 make files readers must refuse
    uint64_t alignment = 32;  // used for the layout; general.alignment is written only if added
    bool big_endian = false;  // swaps every number in header, metadata and infos (not tensor data)
    bool pad_end = true;      // pad the file after the last tensor up to the alignment
  };

  Writer();
  explicit Writer(Options options);

  // Sets the layout alignment and adds general.alignment (UINT32) with the same value.
  void set_alignment(uint32_t alignment);

  void add(std::string key, OwnedValue value);
  // Tensor data placed after the previous tensor, padded to the alignment (as gguf.cpp demands).
  void add_tensor(std::string name, std::vector<uint64_t> ne, uint32_t type_id, std::string bytes);
  // Like add_tensor with zero bytes of the size the type table gives (the type must be usable and
  // ne[0] a multiple of its block size). Zeros are not held in memory.
  void add_zero_tensor(std::string name, std::vector<uint64_t> ne, uint32_t type_id);
  // Escape hatch: a tensor info with an explicit offset; bytes (if any) are placed at that offset
  // of the data section. Later add_tensor calls continue after the furthest byte placed so far.
  void add_tensor_raw(std::string name, std::vector<uint64_t> ne, uint32_t type_id, uint64_t offset,
                      std::string bytes = {});
  // Escape hatches for the header counts (default: the number of keys and tensors added).
  void override_kv_count(uint64_t n) { kv_count_override_ = n; }
  void override_tensor_count(uint64_t n) { tensor_count_override_ = n; }

  // End of the tensor infos (before padding) and the start of the data section.
  uint64_t infos_end() const;
  uint64_t data_offset() const;
  uint64_t file_size() const;
  // Offset of tensor i inside the data section, as written in its info.
  uint64_t tensor_offset(size_t i) const { return tensors_.at(i).offset; }

  std::string to_bytes() const;
  void write_file(const std::string& path) const;

 private:
  struct Tensor {
    std::string name;
    std::vector<uint64_t> ne;
    uint32_t type_id;
    uint64_t offset;
    std::string bytes;    // the data (empty for a zero tensor)
    uint64_t zero_bytes;  // zeros instead of bytes (add_zero_tensor)
  };
  struct Entry {
    std::string key;
    OwnedValue value;
  };

  uint64_t data_end() const;  // bytes in the data section, before the final padding
  std::string header_bytes() const;

  Options options_;
  std::vector<Entry> entries_;
  std::vector<Tensor> tensors_;
  uint64_t next_offset_ = 0;
  std::optional<uint64_t> kv_count_override_;
  std::optional<uint64_t> tensor_count_override_;
};

// Bytes of a tensor of this type and shape from the type table; throws std::invalid_argument for
// unusable types or a row length that is not a multiple of the block size.
uint64_t tensor_byte_size(uint32_t type_id, const std::vector<uint64_t>& ne);

}  // namespace gguf
