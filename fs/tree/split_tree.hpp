// The parts of the tree that differ for a split model (issue 5): model.gguf as the merged file
// served from the shards, the shard lines of each tensor's info, and the mount's times.
#pragma once

#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "fs/tree/content.hpp"
#include "gguf/merged_layout.hpp"
#include "gguf/split.hpp"

namespace gguffs {

// model.gguf: the model file itself (zero-copy) for a single file; for a split model the merged
// file (gguf/merged_layout.hpp): the header from memory, each tensor spliced from its shard,
// zero padding from a static page. Every part goes through the page cache, so mmap works.
std::shared_ptr<const FileContent> model_file_content(const gguf::ModelSet& models);
// A merged file laid out over these shards (also an edited model.gguf, fs/edit/).
std::shared_ptr<const FileContent> merged_file_content(
    const std::vector<gguf::ModelPtr>& shards, std::shared_ptr<const gguf::MergedLayout> layout);

// "shard: K\nfile: NAME\n" for the shard index (0-based) of a split model (K 1-based, as in the
// file names; NAME without directories); "" for a single file.
std::string shard_info_lines(const gguf::ModelSet& models, size_t shard);

// The newest modification time of the model's files.
struct timespec latest_mtime(const gguf::ModelSet& models);

}  // namespace gguffs
