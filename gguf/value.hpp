// Metadata values as the parser leaves them: scalars decoded, strings and arrays as views into
// the model's header bytes (which the Model owns), so a 300,000-entry array costs no allocation
// until someone walks it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "gguf/types.hpp"

namespace gguf {

struct Value;

// The elements of an ARRAY value, still encoded. Walk them with for_each.
struct ArrayRef {
  ValueType element_type = ValueType::UINT8;
  uint64_t count = 0;
  std::string_view bytes;  // the encoded elements, exactly
  bool big_endian = false;

  // Calls f(index, element) for each element in order; stops early when f returns false.
  // Elements of nested arrays are themselves ARRAY values.
  void for_each(const std::function<bool(uint64_t, const Value&)>& f) const;
  // Element i of a fixed-size array (not STRING or ARRAY); nullopt when out of range.
  std::optional<Value> scalar_at(uint64_t i) const;
};

struct Value {
  ValueType type = ValueType::UINT8;
  // Integers: the value; signed types are sign-extended to 64 bits. BOOL: 0 or 1.
  // FLOAT32: the float's bits in the low 32 bits. FLOAT64: the double's bits.
  uint64_t bits = 0;
  std::string_view str;  // STRING: the exact bytes, not necessarily UTF-8
  ArrayRef array;        // ARRAY

  bool is_integer() const;
  bool is_signed_integer() const;
  bool is_float() const;
  // The value as an unsigned integer when it is an integer type holding a non-negative value.
  std::optional<uint64_t> as_unsigned() const;
  // The value as a double for any integer or float type.
  std::optional<double> as_double() const;
  float f32() const;
  double f64() const;
  int64_t i64() const { return static_cast<int64_t>(bits); }
  // The bytes the value takes in its file after the type id: a STRING's length and bytes, an
  // ARRAY's element type, count and elements, a scalar's bytes.
  uint64_t encoded_size() const;
};

}  // namespace gguf
