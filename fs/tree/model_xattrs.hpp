// Extended attributes of a model's tree (issue 7), for getfattr and scripts:
//   metadata/<file>     user.gguf.type   "UINT32", "STRING", "ARRAY[STRING]", ...
//                       user.gguf.count  arrays: the element count, in decimal
//                       user.gguf.key    the exact key, where the file name is not exactly it
//                                        (encoded, cut or suffixed)
//   tensors/<name>/     user.gguf.type   ggml's type name ("Q4_K"; "unknown" for an unassigned id)
//                       user.gguf.name   the exact tensor name, where the directory name is not
//                                        exactly it
#pragma once

#include <vector>

#include "fs/tree/tree.hpp"
#include "gguf/model.hpp"

namespace gguffs {

// Tags the metadata/ files and tensors/ directories already added to b. They are matched to the
// model's entries in order (the builder adds one per entry, in file order, shard after shard),
// and each match is checked by its original name; a node that does not match gets nothing.
void add_model_xattrs(TreeBuilder& b, const std::vector<gguf::ModelPtr>& shards);

}  // namespace gguffs
