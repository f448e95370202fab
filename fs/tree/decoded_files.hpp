// tensors/<name>/data.f32 and data.npy (issue 4), for the tensors gguf::decoded_view allows.
#pragma once

#include "fs/tree/tree.hpp"
#include "gguf/model.hpp"

namespace gguffs {

// Adds data.f32 and data.npy to tensor_dir when the tensor can be decoded; nothing otherwise
// (its info says why). The contents refer to tensor, which model must own.
void add_decoded_files(TreeBuilder& b, Tree::Index tensor_dir, const gguf::ModelPtr& model,
                       const gguf::TensorInfo& tensor);

}  // namespace gguffs
