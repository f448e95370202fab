#include "gguf/value.hpp"

#include <bit>
#include <stdexcept>

#include "gguf/byte_order.hpp"

namespace gguf {

namespace {

// Decodes one scalar of a fixed-size type from p into a Value (bits as documented in value.hpp).
Value decode_scalar(ValueType t, const char* p, bool be) {
  Value v;
  v.type = t;
  switch (t) {
    case ValueType::UINT8:
      v.bits = load<uint8_t>(p, be);
      break;
    case ValueType::INT8:
      v.bits = static_cast<uint64_t>(int64_t{load<int8_t>(p, be)});
      break;
    case ValueType::UINT16:
      v.bits = load<uint16_t>(p, be);
      break;
    case ValueType::INT16:
      v.bits = static_cast<uint64_t>(int64_t{load<int16_t>(p, be)});
      break;
    case ValueType::UINT32:
      v.bits = load<uint32_t>(p, be);
      break;
    case ValueType::INT32:
      v.bits = static_cast<uint64_t>(int64_t{load<int32_t>(p, be)});
      break;
    case ValueType::FLOAT32:
      v.bits = load<uint32_t>(p, be);
      break;
    case ValueType::BOOL:
      v.bits = load<uint8_t>(p, be) != 0;
      break;  // any non-zero byte is true
    case ValueType::UINT64:
      v.bits = load<uint64_t>(p, be);
      break;
    case ValueType::INT64:
      v.bits = load<uint64_t>(p, be);
      break;
    case ValueType::FLOAT64:
      v.bits = load<uint64_t>(p, be);
      break;
    case ValueType::STRING:
    case ValueType::ARRAY:
      throw std::logic_error("decode_scalar on a variable-size type");
  }
  return v;
}

// Walks already-validated array bytes. Bounds are still checked: a failure here is a bug.
class ElementWalker {
 public:
  ElementWalker(std::string_view bytes, bool be) : bytes_(bytes), be_(be) {}

  Value next(ValueType t) {
    if (t == ValueType::STRING) {
      uint64_t len = load<uint64_t>(take(8), be_);
      Value v;
      v.type = t;
      v.str = std::string_view(take(len), len);
      return v;
    }
    if (t == ValueType::ARRAY) {
      Value v;
      v.type = t;
      v.array.element_type = static_cast<ValueType>(load<uint32_t>(take(4), be_));
      v.array.count = load<uint64_t>(take(8), be_);
      v.array.big_endian = be_;
      size_t start = pos_;
      skip_elements(v.array.element_type, v.array.count);
      v.array.bytes = bytes_.substr(start, pos_ - start);
      return v;
    }
    return decode_scalar(t, take(value_type_size(t)), be_);
  }

 private:
  const char* take(uint64_t n) {
    if (n > bytes_.size() - pos_) throw std::logic_error("array bytes shorter than validated");
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }

  void skip_elements(ValueType t, uint64_t count) {
    uint32_t size = value_type_size(t);
    if (size) {
      take(count * size);  // the parser checked this product
      return;
    }
    for (uint64_t i = 0; i < count; ++i) next(t);
  }

  std::string_view bytes_;
  bool be_;
  size_t pos_ = 0;
};

}  // namespace

void ArrayRef::for_each(const std::function<bool(uint64_t, const Value&)>& f) const {
  ElementWalker walker(bytes, big_endian);
  for (uint64_t i = 0; i < count; ++i) {
    if (!f(i, walker.next(element_type))) return;
  }
}

std::optional<Value> ArrayRef::scalar_at(uint64_t i) const {
  uint32_t size = value_type_size(element_type);
  if (size == 0 || i >= count) return std::nullopt;
  return decode_scalar(element_type, bytes.data() + i * size, big_endian);
}

bool Value::is_integer() const {
  switch (type) {
    case ValueType::UINT8:
    case ValueType::INT8:
    case ValueType::UINT16:
    case ValueType::INT16:
    case ValueType::UINT32:
    case ValueType::INT32:
    case ValueType::UINT64:
    case ValueType::INT64:
      return true;
    default:
      return false;
  }
}

bool Value::is_signed_integer() const {
  return type == ValueType::INT8 || type == ValueType::INT16 || type == ValueType::INT32 ||
         type == ValueType::INT64;
}

bool Value::is_float() const {
  return type == ValueType::FLOAT32 || type == ValueType::FLOAT64;
}

std::optional<uint64_t> Value::as_unsigned() const {
  if (!is_integer()) return std::nullopt;
  if (is_signed_integer() && i64() < 0) return std::nullopt;
  return bits;
}

std::optional<double> Value::as_double() const {
  if (type == ValueType::FLOAT32) return f32();
  if (type == ValueType::FLOAT64) return f64();
  if (is_signed_integer()) return static_cast<double>(i64());
  if (is_integer()) return static_cast<double>(bits);
  return std::nullopt;
}

float Value::f32() const {
  return std::bit_cast<float>(static_cast<uint32_t>(bits));
}
double Value::f64() const {
  return std::bit_cast<double>(bits);
}

uint64_t Value::encoded_size() const {
  switch (type) {
    case ValueType::STRING:
      return 8 + str.size();
    case ValueType::ARRAY:
      return 4 + 8 + array.bytes.size();
    default:
      return value_type_size(type);
  }
}

}  // namespace gguf
