// tensors/<name>/sha256 and tensors/<name>/stats (issue 15): computed from the model file when
// first read, then kept for the life of the mount.
#pragma once

#include "fs/tree/tree.hpp"
#include "gguf/model.hpp"

namespace gguffs {

// Adds both files to tensor_dir when the file holds all of the tensor's bytes; nothing
// otherwise (info says what is missing). The contents refer to tensor, which model must own.
void add_health_files(TreeBuilder& b, Tree::Index tensor_dir, const gguf::ModelPtr& model,
                      const gguf::TensorInfo& tensor);

}  // namespace gguffs
