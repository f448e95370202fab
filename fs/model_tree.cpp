#include "fs/model_tree.hpp"

#include "fs/content_range.hpp"
#include "fs/content_text.hpp"
#include "gguf/render.hpp"

namespace gguffs {

namespace {

void add_metadata(TreeBuilder& b, const gguf::ModelPtr& model) {
  const auto dir = b.add_directory(Tree::kRoot, "metadata");
  for (const gguf::MetadataEntry& entry : model->metadata) {
    // The lambdas hold the model, so the views in entry stay valid.
    b.add_file(dir, entry.key, std::make_shared<LazyText>([model, &entry] {
                 return gguf::render_metadata_file(entry.value);
               }));
  }
}

void add_tensors(TreeBuilder& b, const gguf::ModelPtr& model) {
  const auto dir = b.add_directory(Tree::kRoot, "tensors");
  for (const gguf::TensorInfo& t : model->tensors) {
    const auto tensor_dir = b.add_directory(dir, t.name);
    b.add_file(tensor_dir, "info", std::make_shared<LazyText>([model, &t] {
                 return gguf::render_tensor_info(*model, t);
               }));
    b.add_file(tensor_dir, "data",
               std::make_shared<ByteRange>(model->source, t.file_offset, t.bytes, t.bytes_present));
  }
}

}  // namespace

std::shared_ptr<const Tree> build_model_tree(gguf::ModelPtr model, const Owner& owner) {
  TreeAttributes attributes;
  attributes.uid = owner.uid;
  attributes.gid = owner.gid;
  attributes.mtime = model->source->mtime();
  attributes.backing_bytes = model->source->size();
  TreeBuilder b(attributes);
  b.add_file(Tree::kRoot, "summary.txt",
             std::make_shared<LazyText>([model] { return gguf::render_summary(*model); }));
  const uint64_t file_size = model->source->size();
  b.add_file(Tree::kRoot, "model.gguf",
             std::make_shared<ByteRange>(model->source, 0, file_size, file_size));
  add_metadata(b, model);
  add_tensors(b, model);
  b.keep_alive(model);
  return std::move(b).finish();
}

}  // namespace gguffs
