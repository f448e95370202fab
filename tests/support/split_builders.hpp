// Small split models written with gguf::Writer, for the split tests (unit and mount).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gguf/writer.hpp"

namespace test_support {

// Shard `no` (0-based) of a small split model of `count` shards, as gguf-split writes them:
// shard 0 holds general.architecture "llama", general.name "split-test", llama.block_count 1
// (u32); every shard holds split.no (u16), split.count (u16), split.tensors.count (i32, 2 * count
// unless given) and two F32 tensors: "blk.<no>.a" [5] = no*100 + 0..4 (20 bytes) and
// "blk.<no>.b" [3] = no*100 + 10..12 (12 bytes), so the alignment padding shows.
gguf::Writer split_shard_writer(uint16_t no, uint16_t count,
                                std::optional<int32_t> tensors_count = std::nullopt);
// The bytes of n float32 values first, first + 1, ...
std::string f32_bytes(float first, size_t n);
// dir/<prefix>-<no+1>-of-<count>.gguf with 5-digit numbers.
std::filesystem::path shard_file(const std::filesystem::path& dir, const std::string& prefix,
                                 uint16_t no, uint16_t count);
// Writes every shard of split_shard_writer(no, count) into dir; returns the paths in order.
std::vector<std::filesystem::path> write_split_model(const std::filesystem::path& dir,
                                                     const std::string& prefix, uint16_t count);

}  // namespace test_support
