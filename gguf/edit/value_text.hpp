// Text -> value: the exact inverse of render_metadata_file (render.hpp), for writes to
// metadata/<key> through an editable mount. The result is the value's GGUF encoding (the bytes
// after the type id), ready to go into a new header.
//
//   integers   decimal, in range for the type ("-5", "255"); a leading '+' is refused
//   BOOL       true / false
//   FLOAT32/64 what std::from_chars reads in full ("0.1", "1e-05", "nan", "-inf"), in range
//   STRING     the exact bytes, nothing stripped
//   ARRAY      one element per line (the last newline optional; an empty text is an empty array);
//              string elements with the read escapes undone (\\ \n \r \t \xHH); an element that is
//              itself an array as a JSON array ([1,2], ["a","b"], [[1],[2]])
// Scalars may end with one "\n" (as they read). Anything else throws ValueTextError with a
// one-line reason ("line 3: 300 is out of range for UINT8").
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/types.hpp"
#include "gguf/value.hpp"

namespace gguf {

class ValueTextError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A value's full type: {UINT32}, {ARRAY, STRING}, {ARRAY, ARRAY, INT32}. A nested array whose
// innermost type is unknown (an empty array of arrays) ends in ARRAY.
struct TypeSpec {
  std::vector<ValueType> chain;

  ValueType type() const { return chain.front(); }
  bool operator==(const TypeSpec&) const = default;
};

// "UINT32", "STRING", "ARRAY[STRING]", "ARRAY[ARRAY[INT32]]" (as user.gguf.type reads; case
// insensitive). Throws ValueTextError for anything else.
TypeSpec parse_type_spec(std::string_view name);
// The inverse of parse_type_spec.
std::string type_spec_name(const TypeSpec& spec);
// The full type of a parsed value (nested arrays: from their first element).
TypeSpec type_spec_of(const Value& v);

// The encoding of text as a value of type spec, numbers in the given byte order.
std::string encode_value_text(const TypeSpec& spec, std::string_view text, bool big_endian);

}  // namespace gguf
