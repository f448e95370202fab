#include "gguf/writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace gguf {

namespace {

uint64_t align_up(uint64_t x, uint64_t alignment) {
  return (x + alignment - 1) / alignment * alignment;
}

// Appends numbers in the file's byte order.
class Encoder {
 public:
  Encoder(std::string& out, bool big_endian) : out_(out), big_endian_(big_endian) {}

  void number(uint64_t bits, uint32_t size) {
    char b[8];
    for (uint32_t i = 0; i < size; ++i) {
      uint32_t shift = big_endian_ ? 8 * (size - 1 - i) : 8 * i;
      b[i] = static_cast<char>((bits >> shift) & 0xFF);
    }
    out_.append(b, size);
  }
  void u32(uint32_t v) { number(v, 4); }
  void u64(uint64_t v) { number(v, 8); }
  void string(const std::string& s) {
    u64(s.size());
    out_ += s;
  }
  void raw(const std::string& bytes) { out_ += bytes; }

  // The value without its type id.
  void value(const OwnedValue& v) {
    if (v.raw_encoding) return raw(*v.raw_encoding);
    switch (v.type) {
      case ValueType::STRING:
        return string(v.str);
      case ValueType::ARRAY:
        return array(v);
      default:
        return number(v.bits, value_type_size(v.type));
    }
  }

  void array(const OwnedValue& v) {
    u32(static_cast<uint32_t>(v.element_type));
    u64(v.element_count());
    if (v.element_type == ValueType::STRING) {
      for (const auto& s : v.strings) string(s);
    } else if (v.element_type == ValueType::ARRAY) {
      for (const auto& a : v.arrays) value(a);
    } else {
      uint32_t size = value_type_size(v.element_type);
      for (uint64_t bits : v.scalars) number(bits, size);
    }
  }

 private:
  std::string& out_;
  bool big_endian_;
};

OwnedValue make_scalar(ValueType t, uint64_t bits) {
  OwnedValue v;
  v.type = t;
  v.bits = bits;
  return v;
}

}  // namespace

OwnedValue OwnedValue::u8(uint8_t v) {
  return make_scalar(ValueType::UINT8, v);
}
OwnedValue OwnedValue::i8(int8_t v) {
  return make_scalar(ValueType::INT8, static_cast<uint8_t>(v));
}
OwnedValue OwnedValue::u16(uint16_t v) {
  return make_scalar(ValueType::UINT16, v);
}
OwnedValue OwnedValue::i16(int16_t v) {
  return make_scalar(ValueType::INT16, static_cast<uint16_t>(v));
}
OwnedValue OwnedValue::u32(uint32_t v) {
  return make_scalar(ValueType::UINT32, v);
}
OwnedValue OwnedValue::i32(int32_t v) {
  return make_scalar(ValueType::INT32, static_cast<uint32_t>(v));
}
OwnedValue OwnedValue::u64(uint64_t v) {
  return make_scalar(ValueType::UINT64, v);
}
OwnedValue OwnedValue::i64(int64_t v) {
  return make_scalar(ValueType::INT64, static_cast<uint64_t>(v));
}
OwnedValue OwnedValue::f32(float v) {
  return make_scalar(ValueType::FLOAT32, std::bit_cast<uint32_t>(v));
}
OwnedValue OwnedValue::f64(double v) {
  return make_scalar(ValueType::FLOAT64, std::bit_cast<uint64_t>(v));
}
OwnedValue OwnedValue::boolean(bool v) {
  return make_scalar(ValueType::BOOL, v ? 1 : 0);
}
OwnedValue OwnedValue::bool_byte(uint8_t byte) {
  return make_scalar(ValueType::BOOL, byte);
}
OwnedValue OwnedValue::string(std::string v) {
  OwnedValue r;
  r.type = ValueType::STRING;
  r.str = std::move(v);
  return r;
}
OwnedValue OwnedValue::scalar(ValueType t, uint64_t bits) {
  if (value_type_size(t) == 0) throw std::invalid_argument("scalar(): not a fixed-size type");
  return make_scalar(t, bits);
}

OwnedValue OwnedValue::scalar_array(ValueType element_type, std::vector<uint64_t> bits) {
  if (value_type_size(element_type) == 0) {
    throw std::invalid_argument("scalar_array(): not a fixed-size element type");
  }
  OwnedValue r;
  r.type = ValueType::ARRAY;
  r.element_type = element_type;
  r.scalars = std::move(bits);
  return r;
}

OwnedValue OwnedValue::string_array(std::vector<std::string> v) {
  OwnedValue r;
  r.type = ValueType::ARRAY;
  r.element_type = ValueType::STRING;
  r.strings = std::move(v);
  return r;
}

OwnedValue OwnedValue::copy_of(const Value& v) {
  if (v.type == ValueType::STRING) return string(std::string(v.str));
  if (v.type != ValueType::ARRAY) return scalar(v.type, v.bits);
  const ValueType element = v.array.element_type;
  std::vector<std::string> strings;
  std::vector<uint64_t> bits;
  std::vector<OwnedValue> arrays;
  v.array.for_each([&](uint64_t, const Value& e) {
    if (element == ValueType::STRING) {
      strings.emplace_back(e.str);
    } else if (element == ValueType::ARRAY) {
      arrays.push_back(copy_of(e));
    } else {
      bits.push_back(e.bits);
    }
    return true;
  });
  if (element == ValueType::STRING) return string_array(std::move(strings));
  if (element == ValueType::ARRAY) return array_of_arrays(std::move(arrays));
  return scalar_array(element, std::move(bits));
}

OwnedValue OwnedValue::array_of_arrays(std::vector<OwnedValue> elements) {
  for (const auto& e : elements) {
    if (e.type != ValueType::ARRAY) {
      throw std::invalid_argument("array_of_arrays(): every element must be an ARRAY");
    }
  }
  OwnedValue r;
  r.type = ValueType::ARRAY;
  r.element_type = ValueType::ARRAY;
  r.arrays = std::move(elements);
  return r;
}

OwnedValue OwnedValue::i32_array(const std::vector<int32_t>& v) {
  std::vector<uint64_t> bits;
  bits.reserve(v.size());
  for (int32_t x : v) bits.push_back(static_cast<uint32_t>(x));
  return scalar_array(ValueType::INT32, std::move(bits));
}

OwnedValue OwnedValue::u32_array(const std::vector<uint32_t>& v) {
  return scalar_array(ValueType::UINT32, std::vector<uint64_t>(v.begin(), v.end()));
}

OwnedValue OwnedValue::f32_array(const std::vector<float>& v) {
  std::vector<uint64_t> bits;
  bits.reserve(v.size());
  for (float x : v) bits.push_back(std::bit_cast<uint32_t>(x));
  return scalar_array(ValueType::FLOAT32, std::move(bits));
}

OwnedValue OwnedValue::raw(ValueType t, std::string encoding) {
  OwnedValue r;
  r.type = t;
  r.raw_encoding = std::move(encoding);
  return r;
}

uint64_t OwnedValue::element_count() const {
  if (element_type == ValueType::STRING) return strings.size();
  if (element_type == ValueType::ARRAY) return arrays.size();
  return scalars.size();
}

uint64_t tensor_byte_size(uint32_t type_id, const std::vector<uint64_t>& ne) {
  auto t = tensor_type(type_id);
  if (!t || t->block_size == 0) {
    throw std::invalid_argument("tensor_byte_size: type " + std::to_string(type_id) +
                                " has no known size");
  }
  uint64_t ne0 = ne.empty() ? 1 : ne[0];
  if (ne0 % t->block_size != 0) {
    throw std::invalid_argument("tensor_byte_size: ne0 " + std::to_string(ne0) +
                                " is not a multiple of the block size");
  }
  uint64_t bytes = ne0 / t->block_size * t->block_bytes;
  for (size_t i = 1; i < ne.size(); ++i) {
    if (__builtin_mul_overflow(bytes, ne[i], &bytes)) {
      throw std::invalid_argument("tensor_byte_size: size overflows 64 bits");
    }
  }
  return bytes;
}

Writer::Writer() : Writer(Options{}) {}

Writer::Writer(Options options) : options_(options) {
  if (options_.alignment == 0) throw std::invalid_argument("Writer: alignment must not be 0");
}

void Writer::set_alignment(uint32_t alignment) {
  if (alignment == 0) throw std::invalid_argument("Writer: alignment must not be 0");
  if (!tensors_.empty()) throw std::logic_error("Writer: set the alignment before any tensor");
  options_.alignment = alignment;
  add("general.alignment", OwnedValue::u32(alignment));
}

void Writer::add(std::string key, OwnedValue value) {
  entries_.push_back({std::move(key), std::move(value)});
}

void Writer::add_tensor(std::string name, std::vector<uint64_t> ne, uint32_t type_id,
                        std::string bytes) {
  uint64_t offset = next_offset_;
  next_offset_ = align_up(offset + bytes.size(), options_.alignment);
  tensors_.push_back({std::move(name), std::move(ne), type_id, offset, std::move(bytes), 0});
}

void Writer::add_zero_tensor(std::string name, std::vector<uint64_t> ne, uint32_t type_id) {
  uint64_t size = tensor_byte_size(type_id, ne);
  uint64_t offset = next_offset_;
  next_offset_ = align_up(offset + size, options_.alignment);
  tensors_.push_back({std::move(name), std::move(ne), type_id, offset, {}, size});
}

void Writer::add_tensor_raw(std::string name, std::vector<uint64_t> ne, uint32_t type_id,
                            uint64_t offset, std::string bytes) {
  if (!bytes.empty()) {
    next_offset_ = std::max(next_offset_, align_up(offset + bytes.size(), options_.alignment));
  }
  tensors_.push_back({std::move(name), std::move(ne), type_id, offset, std::move(bytes), 0});
}

std::string Writer::header_bytes() const {
  std::string out;
  Encoder e(out, options_.big_endian);
  out += "GGUF";
  e.u32(options_.version);
  e.u64(tensor_count_override_.value_or(tensors_.size()));
  e.u64(kv_count_override_.value_or(entries_.size()));
  for (const auto& entry : entries_) {
    e.string(entry.key);
    e.u32(static_cast<uint32_t>(entry.value.type));
    e.value(entry.value);
  }
  for (const auto& t : tensors_) {
    e.string(t.name);
    e.u32(static_cast<uint32_t>(t.ne.size()));
    for (uint64_t d : t.ne) e.u64(d);
    e.u32(t.type_id);
    e.u64(t.offset);
  }
  return out;
}

uint64_t Writer::infos_end() const {
  return header_bytes().size();
}

uint64_t Writer::data_offset() const {
  return align_up(infos_end(), options_.alignment);
}

uint64_t Writer::data_end() const {
  uint64_t end = 0;
  for (const auto& t : tensors_) {
    uint64_t size = t.bytes.empty() ? t.zero_bytes : t.bytes.size();
    if (size > 0) end = std::max(end, t.offset + size);
  }
  return end;
}

uint64_t Writer::file_size() const {
  uint64_t end = data_offset() + data_end();
  return options_.pad_end ? align_up(end, options_.alignment) : end;
}

std::string Writer::to_bytes() const {
  std::string out = header_bytes();
  uint64_t data_start = align_up(out.size(), options_.alignment);
  uint64_t end = data_start + data_end();
  if (options_.pad_end) end = align_up(end, options_.alignment);
  out.resize(end, '\0');
  for (const auto& t : tensors_) {
    if (!t.bytes.empty())
      std::memcpy(out.data() + data_start + t.offset, t.bytes.data(), t.bytes.size());
  }
  return out;
}

void Writer::write_file(const std::string& path) const {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "open " + path);
  auto fail = [&](const char* what) {
    int err = errno;
    ::close(fd);
    throw std::system_error(err, std::generic_category(), std::string(what) + " " + path);
  };
  auto write_at = [&](const std::string& bytes, uint64_t offset) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n =
          ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        fail("write");
      }
      done += static_cast<size_t>(n);
    }
  };
  std::string header = header_bytes();
  uint64_t data_start = align_up(header.size(), options_.alignment);
  uint64_t end = data_start + data_end();
  if (options_.pad_end) end = align_up(end, options_.alignment);
  write_at(header, 0);
  for (const auto& t : tensors_) {
    if (!t.bytes.empty()) write_at(t.bytes, data_start + t.offset);
  }
  // Padding and zero tensors: extending the file fills them with zeros without writing them.
  if (::ftruncate(fd, static_cast<off_t>(end)) != 0) fail("truncate");
  if (::close(fd) != 0) {
    throw std::system_error(errno, std::generic_category(), "close " + path);
  }
}

}  // namespace gguf
