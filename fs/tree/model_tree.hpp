// The layout of a mounted model (issue 3; split models, issue 5):
//   summary.txt                 render_set_summary
//   model.gguf                  the whole model file; for a split model, the merged file
//                               (split_tree.hpp)
//   metadata/<key>              render_metadata_file, one per entry, in file order
//   tensors/<name>/info         render_tensor_info (+ "shard:" and "file:" for split models)
//   tensors/<name>/data         the tensor's bytes as stored, [file_offset, +bytes)
//   hf/...                      the Hugging Face view (hf_tree.hpp, issue 14)
// Names are encoded by names::encode; duplicates get "~2", "~3"...
#pragma once

#include <sys/types.h>

#include <memory>

#include "fs/tree/tree.hpp"
#include "gguf/hf/hf_view.hpp"
#include "gguf/model.hpp"
#include "gguf/split.hpp"

namespace gguffs {

struct Owner {
  uid_t uid = 0;
  gid_t gid = 0;
};

// Choices that change what the tree shows.
struct TreeOptions {
  gguf::hf::Dtype hf_dtype = gguf::hf::Dtype::F32;  // -o hf_dtype: quantized tensors in hf/
};

// The tree of a parsed model, or of every shard of a split model as one: metadata from the first
// shard, tensors from all. Text files are rendered lazily, on first access.
std::shared_ptr<const Tree> build_model_tree(const gguf::ModelSet& models, const Owner& owner,
                                             const TreeOptions& options = {});
// The tree of one model file.
std::shared_ptr<const Tree> build_model_tree(gguf::ModelPtr model, const Owner& owner,
                                             const TreeOptions& options = {});

}  // namespace gguffs
