// The mount's hf/ directory (issue 14), from a gguf::hf::HfView:
//   hf/config.json              transformers config (absent when a required key is missing)
//   hf/model.safetensors        every mapped tensor, one safetensors file (header made lazily)
//   hf/unmapped.txt             the tensors (and config keys) left out, and why
//   hf/<hf_name>/info           render_hf_tensor_info
//   hf/<hf_name>/data           the values in Hugging Face layout (same bytes as in the
//                               safetensors file)
//   hf/<hf_name>/data.npy       a .npy of them (BF16 widened to float32)
// Every content is cheap to make; nothing is rendered or read until a file is used.
#pragma once

#include <memory>

#include "fs/tree/tree.hpp"
#include "gguf/hf/hf_view.hpp"
#include "gguf/split.hpp"

namespace gguffs {

// view must describe models; the contents keep view alive and point into models' tensors, which
// the tree must keep alive.
void add_hf_tree(TreeBuilder& b, const gguf::ModelSet& models,
                 std::shared_ptr<const gguf::hf::HfView> view);

}  // namespace gguffs
