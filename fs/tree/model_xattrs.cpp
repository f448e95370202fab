#include "fs/tree/model_xattrs.hpp"

#include <optional>
#include <string>

#include "gguf/render/render_json.hpp"

namespace gguffs {

namespace {

std::optional<Tree::Index> root_directory(const TreeBuilder& b, std::string_view name) {
  for (const Tree::Index i : b.node(Tree::kRoot).children)
    if (b.node(i).is_dir() && b.node(i).name == name) return i;
  return std::nullopt;
}

void tag_metadata(TreeBuilder& b, Tree::Index file, const gguf::MetadataEntry& entry) {
  b.add_xattr(file, "user.gguf.type", gguf::value_type_label(entry.value));
  if (entry.value.type == gguf::ValueType::ARRAY)
    b.add_xattr(file, "user.gguf.count", std::to_string(entry.value.array.count));
  if (b.node(file).name != entry.key) b.add_xattr(file, "user.gguf.key", std::string(entry.key));
}

void tag_tensor(TreeBuilder& b, Tree::Index dir, const gguf::TensorInfo& tensor) {
  const auto type = gguf::tensor_type(tensor.type_id);
  b.add_xattr(dir, "user.gguf.type", std::string(type ? type->name : "unknown"));
  if (b.node(dir).name != tensor.name) b.add_xattr(dir, "user.gguf.name", std::string(tensor.name));
}

}  // namespace

void add_model_xattrs(TreeBuilder& b, const std::vector<gguf::ModelPtr>& shards) {
  if (shards.empty()) return;
  if (const auto dir = root_directory(b, "metadata")) {
    const std::vector<Tree::Index> files = b.node(*dir).children;
    const auto& metadata = shards.front()->metadata;
    for (size_t k = 0; k < files.size() && k < metadata.size(); ++k)
      if (b.node(files[k]).original == metadata[k].key) tag_metadata(b, files[k], metadata[k]);
  }
  if (const auto dir = root_directory(b, "tensors")) {
    const std::vector<Tree::Index> dirs = b.node(*dir).children;
    size_t k = 0;
    for (const gguf::ModelPtr& model : shards) {
      for (const gguf::TensorInfo& t : model->tensors) {
        if (k >= dirs.size()) return;
        const Tree::Index d = dirs[k++];
        if (b.node(d).is_dir() && b.node(d).original == t.name) tag_tensor(b, d, t);
      }
    }
  }
}

}  // namespace gguffs
