// The layout of a mounted model (issue 3):
//   summary.txt                 render_summary
//   model.gguf                  the whole model file (single-file models)
//   metadata/<key>              render_metadata_file, one per entry, in file order
//   tensors/<name>/info         render_tensor_info
//   tensors/<name>/data         the tensor's bytes as stored, [file_offset, +bytes)
// Names are encoded by names::encode; duplicates get "~2", "~3"...
#pragma once

#include <sys/types.h>

#include <memory>

#include "fs/tree.hpp"
#include "gguf/model.hpp"

namespace gguffs {

struct Owner {
  uid_t uid = 0;
  gid_t gid = 0;
};

// The tree of a parsed model. Text files are rendered lazily, on first access.
std::shared_ptr<const Tree> build_model_tree(gguf::ModelPtr model, const Owner& owner);

}  // namespace gguffs
