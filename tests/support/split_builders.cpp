#include "tests/support/split_builders.hpp"

#include <cstdio>
#include <cstring>

namespace test_support {

std::string f32_bytes(float first, size_t n) {
  std::string out(n * 4, '\0');
  for (size_t i = 0; i < n; ++i) {
    const float v = first + static_cast<float>(i);
    std::memcpy(out.data() + i * 4, &v, 4);
  }
  return out;
}

gguf::Writer split_shard_writer(uint16_t no, uint16_t count, std::optional<int32_t> tensors_count) {
  using gguf::OwnedValue;
  gguf::Writer w;
  if (no == 0) {
    w.add("general.architecture", OwnedValue::string("llama"));
    w.add("general.name", OwnedValue::string("split-test"));
    w.add("llama.block_count", OwnedValue::u32(1));
  }
  w.add("split.no", OwnedValue::u16(no));
  w.add("split.count", OwnedValue::u16(count));
  w.add("split.tensors.count", OwnedValue::i32(tensors_count.value_or(2 * count)));
  const float base = static_cast<float>(no) * 100.0f;
  w.add_tensor("blk." + std::to_string(no) + ".a", {5}, gguf::type_id::F32, f32_bytes(base, 5));
  w.add_tensor("blk." + std::to_string(no) + ".b", {3}, gguf::type_id::F32,
               f32_bytes(base + 10.0f, 3));
  return w;
}

std::filesystem::path shard_file(const std::filesystem::path& dir, const std::string& prefix,
                                 uint16_t no, uint16_t count) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "-%05d-of-%05d.gguf", no + 1, count);
  return dir / (prefix + suffix);
}

std::vector<std::filesystem::path> write_split_model(const std::filesystem::path& dir,
                                                     const std::string& prefix, uint16_t count) {
  std::vector<std::filesystem::path> paths;
  for (uint16_t no = 0; no < count; ++no) {
    paths.push_back(shard_file(dir, prefix, no, count));
    split_shard_writer(no, count).write_file(paths.back().string());
  }
  return paths;
}

}  // namespace test_support
