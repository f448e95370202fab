// Split (sharded) models, as llama.cpp's gguf-split and gguf-py write them (reference §3):
// files named "<prefix>-%05d-of-%05d.gguf" (1-based numbers), each a complete GGUF file with
// split.no (u16, 0-based), split.count (u16) and split.tensors.count (i32, the total over all
// shards). The first shard holds the metadata; every shard holds some of the tensors.
//
// A ModelSet is what the filesystem mounts: one model file, or every shard of a split model.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/model.hpp"

namespace gguf {

struct MergedLayout;

// The parts of a shard's path by the naming rule; nullopt when the path does not follow it
// (exactly 5 digits each, 1 <= number <= count, a non-empty prefix).
struct ShardName {
  std::string prefix;   // everything before "-NNNNN-of-NNNNN.gguf", directories included
  uint32_t number = 0;  // 1-based, as in the name
  uint32_t count = 0;
};
std::optional<ShardName> parse_shard_name(std::string_view path);
// "<prefix>-%05d-of-%05d.gguf".
std::string shard_path(std::string_view prefix, uint32_t number, uint32_t count);

struct ModelSet {
  // One model for a single file; for a split model every shard in order (shards[0] holds the
  // metadata). Never empty.
  std::vector<ModelPtr> shards;
  // Split models: how model.gguf merges the shards into one file. Null for a single file.
  std::shared_ptr<const MergedLayout> merged;

  bool is_split() const { return shards.size() > 1; }
  const ModelPtr& first() const { return shards.front(); }
  uint64_t tensor_count() const;
  uint64_t total_file_size() const;  // the sum of the shards' sizes
};

// A set of one model file, mounted as it is.
ModelSet single_model(ModelPtr model);

// Opens path and, when its name follows the naming rule and its split.count is above 1, every
// other shard, checking that they form one model (all present and readable, the same
// split.count, split.no matching each name, no tensor in two shards, split.tensors.count equal to
// the number of tensors). Throws FormatError(split) naming the shard and what is wrong; errors
// reading the given file itself are thrown as they are. single: just the given file (--single).
// open: how a location is opened (open_file when empty; the remote opener for URLs, whose shards
// are found by the same naming rule applied to the URL).
ModelSet open_model_set(const std::string& path, bool single = false,
                        const SourceOpener& open = {});

// summary.txt of a set: render_summary for a single file; for a split model the merged model's
// summary (what model.gguf holds: totals over all shards) followed by the shards, one per line.
std::string render_set_summary(const ModelSet& set);
// `gguffs check`: the warnings; for a split model each prefixed with its shard's file name.
std::string render_set_warnings(const ModelSet& set);

}  // namespace gguf
