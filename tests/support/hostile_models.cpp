#include "tests/support/hostile_models.hpp"

#include <cstdint>

#include "gguf/writer.hpp"

namespace test_support {

namespace {

using gguf::OwnedValue;
using gguf::ValueType;
using Kind = gguf::FormatError::Kind;

// Little-endian integers for hand-made headers.
std::string le(uint64_t v, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
  return out;
}
std::string header(uint32_t version, uint64_t n_tensors, uint64_t n_kv) {
  return "GGUF" + le(version, 4) + le(n_tensors, 8) + le(n_kv, 8);
}
std::string gguf_string(const std::string& s) {
  return le(s.size(), 8) + s;
}

std::string one_tensor(std::vector<uint64_t> ne, uint32_t type, std::string bytes) {
  gguf::Writer w;
  w.add("general.architecture", OwnedValue::string("llama"));
  w.add_tensor("t", std::move(ne), type, std::move(bytes));
  return w.to_bytes();
}

std::string nested(int depth) {
  OwnedValue v = OwnedValue::i32_array({1});
  for (int i = 1; i < depth; ++i) v = OwnedValue::array_of_arrays({v});
  gguf::Writer w;
  w.add("deep", v);
  return w.to_bytes();
}

}  // namespace

std::vector<HostileCase> hostile_cases() {
  std::vector<HostileCase> c;
  auto add = [&](std::string name, std::string description, std::string bytes,
                 std::optional<Kind> refused, std::string message) {
    c.push_back(
        {std::move(name), std::move(description), std::move(bytes), refused, std::move(message)});
  };

  add("empty", "an empty file", "", Kind::not_gguf, "the file is empty");
  add("lfs-pointer", "a Git LFS pointer instead of the model",
      "version https://git-lfs.github.com/spec/v1\noid sha256:0123\nsize 4368439584\n",
      Kind::not_gguf, "Git LFS pointer");
  add("version-1", "GGUF version 1", header(1, 0, 0), Kind::unsupported_version,
      "version 1 is not supported");
  add("version-4", "GGUF version 4 (from the future)", header(4, 0, 0), Kind::unsupported_version,
      "version 4 is not supported");
  add("header-cut", "the file ends inside the header", header(3, 0, 0).substr(0, 17),
      Kind::malformed, "but the file ends");
  add("tensor-count-huge", "2^63 tensors claimed", header(3, uint64_t{1} << 63, 0), Kind::malformed,
      "cannot fit in the");
  add("kv-count-huge", "2^64-1 metadata pairs claimed", header(3, 0, ~uint64_t{0}), Kind::malformed,
      "cannot fit in the");
  add("key-length-max", "a key length of 2^64-1 (crashes gguf-tools)",
      header(3, 0, 1) + le(~uint64_t{0}, 8) + std::string(32, 'k'), Kind::malformed,
      "string length 18446744073709551615 exceeds");
  add("string-past-end", "a string value longer than the file",
      header(3, 0, 1) + gguf_string("k") + le(8, 4) + le(1000000, 8) + "abc", Kind::malformed,
      "exceeds the 3 bytes left");
  add("array-count-huge", "an array of 2^61 UINT64",
      header(3, 0, 1) + gguf_string("k") + le(9, 4) + le(10, 4) + le(uint64_t{1} << 61, 8),
      Kind::malformed, "needs at least");
  add("value-type-unknown", "value type id 13",
      header(3, 0, 1) + gguf_string("k") + le(13, 4) + le(0, 8), Kind::malformed,
      "invalid value type 13");
  add("arrays-nested-9", "arrays nested 9 deep (the limit is 8)", nested(9), Kind::malformed,
      "nested deeper than 8");
  {
    gguf::Writer w;
    w.add("general.alignment", OwnedValue::u32(3));
    add("alignment-3", "general.alignment 3 (not a power of two)", w.to_bytes(), std::nullopt,
        "not a power of two");
  }
  {
    gguf::Writer w;
    w.add("b", OwnedValue::bool_byte(7));
    w.add("k", OwnedValue::string("x"));
    w.add("k", OwnedValue::string("y"));
    w.add(std::string(300, 'k') + "/../\x01", OwnedValue::string("z"));
    w.add(std::string("\xff\xfe", 2), OwnedValue::u8(1));
    add("odd-keys",
        "a BOOL byte 7, a duplicate key, a 300-byte key with / .. and a control byte, "
        "a key that is not UTF-8",
        w.to_bytes(), std::nullopt, "duplicate key");
  }
  add(
      "dims-5", "a tensor with 5 dimensions (ggml has 4)",
      [] {
        gguf::Writer w;
        w.add_tensor("t", {1, 1, 1, 1, 1}, 0, std::string(4, '\0'));
        return w.to_bytes();
      }(),
      Kind::malformed, "5 dimensions");
  add(
      "dims-overflow", "a tensor whose element count overflows 64 bits",
      [] {
        gguf::Writer w;
        w.add_tensor_raw("t", {uint64_t{1} << 40, uint64_t{1} << 40}, 0, 0);
        return w.to_bytes();
      }(),
      Kind::malformed, "overflows 64 bits");
  add(
      "tensor-type-unknown", "an unknown tensor type id (size taken from the gap)",
      [] {
        gguf::Writer w;
        w.add_tensor_raw("t", {8}, 99, 0, std::string(32, '\1'));
        w.add_tensor("u", {4}, 0, std::string(16, '\2'));
        return w.to_bytes();
      }(),
      std::nullopt, "unknown type id 99");
  add(
      "tensor-past-end", "tensor data offset far past the end of the file",
      [] {
        gguf::Writer w;
        w.add_tensor_raw("t", {4}, 0, uint64_t{1} << 40);
        std::string bytes = w.to_bytes();
        return bytes;
      }(),
      std::nullopt, "data runs past the end");
  add(
      "tensor-huge", "a 2^60-byte tensor in a small file",
      [] {
        gguf::Writer w;
        w.add_tensor_raw("t", {uint64_t{1} << 58}, 0, 0);
        return w.to_bytes();
      }(),
      std::nullopt, "bytes are missing");
  add(
      "tensors-overlap", "two tensors over the same bytes",
      [] {
        gguf::Writer w;
        w.add_tensor_raw("a", {8}, 0, 0, std::string(32, '\1'));
        w.add_tensor_raw("b", {8}, 0, 0);
        return w.to_bytes();
      }(),
      std::nullopt, "overlap");
  add(
      "tensor-misaligned", "a tensor offset not a multiple of the alignment",
      [] {
        gguf::Writer w;
        w.add_tensor_raw("a", {4}, 0, 4, std::string(16, '\1'));
        return w.to_bytes();
      }(),
      std::nullopt, "not a multiple of the alignment");
  add(
      "tensor-names-duplicate", "two tensors with the same name",
      [] {
        gguf::Writer w;
        w.add_tensor("a", {4}, 0, std::string(16, '\1'));
        w.add_tensor("a", {4}, 0, std::string(16, '\2'));
        return w.to_bytes();
      }(),
      std::nullopt, "duplicate tensor name");
  add("truncated-data", "a download cut inside the tensor data",
      one_tensor({1024}, 0, std::string(4096, '\3')).substr(0, 2000), std::nullopt,
      "2224 of its 4096 bytes are missing");
  return c;
}

}  // namespace test_support
