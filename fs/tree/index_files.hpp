// The machine-readable indexes at the root of the mount (issue 7): metadata.json, tensors.tsv and
// tensors.json (rules in gguf/render_json.hpp), rendered on first access and kept.
#pragma once

#include <vector>

#include "fs/tree/tree.hpp"
#include "gguf/hf/hf_view.hpp"
#include "gguf/model.hpp"

namespace gguffs {

// Adds the three files to the root. shards: the model, or every shard of a split model in order
// (the metadata comes from the first; the tensors from all).
// hf_view gives tensors.tsv's and tensors.json's hf_name of each tensor.
void add_index_files(TreeBuilder& b, const std::vector<gguf::ModelPtr>& shards,
                     std::shared_ptr<const gguf::hf::HfView> hf_view);

}  // namespace gguffs
