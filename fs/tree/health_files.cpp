#include "fs/tree/health_files.hpp"

#include "fs/tree/content_text.hpp"
#include "gguf/stats/sha256.hpp"
#include "gguf/stats/tensor_stats.hpp"

namespace gguffs {

void add_health_files(TreeBuilder& b, Tree::Index tensor_dir, const gguf::ModelPtr& model,
                      const gguf::TensorInfo& tensor) {
  if (!tensor.data_complete()) return;
  // 64 hex digits and a newline: the size is known, so listing the directory hashes nothing.
  b.add_file(tensor_dir, "sha256",
             std::make_shared<LazyText>(
                 [model, &tensor] {
                   return gguf::sha256_hex(*model->source, tensor.file_offset, tensor.bytes) + "\n";
                 },
                 65));
  b.add_file(tensor_dir, "stats", std::make_shared<LazyText>([model, &tensor] {
               return gguf::render_tensor_stats(gguf::compute_tensor_stats(*model, tensor));
             }));
}

}  // namespace gguffs
