#include "fs/tree/model_tree.hpp"

#include "fs/tree/content_range.hpp"
#include "fs/tree/content_text.hpp"
#include "fs/tree/decoded_files.hpp"
#include "fs/tree/hf_tree.hpp"
#include "fs/tree/index_files.hpp"
#include "fs/tree/model_xattrs.hpp"
#include "fs/tree/split_tree.hpp"
#include "gguf/render/render.hpp"

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

// Every tensor of every shard, in shard order; `model` is the shard holding t.
// hf_names: each tensor's Hugging Face name in set order ("" for none).
void add_tensors(TreeBuilder& b, const gguf::ModelSet& models,
                 const std::vector<std::string>& hf_names) {
  const auto dir = b.add_directory(Tree::kRoot, "tensors");
  size_t index = 0;
  for (size_t shard = 0; shard < models.shards.size(); ++shard) {
    const gguf::ModelPtr& model = models.shards[shard];
    const std::string shard_lines = shard_info_lines(models, shard);
    for (const gguf::TensorInfo& t : model->tensors) {
      const auto tensor_dir = b.add_directory(dir, t.name);
      const std::string& hf_name = hf_names.at(index++);  // owned by the view the tree keeps
      b.add_file(tensor_dir, "info", std::make_shared<LazyText>([model, &t, shard_lines, &hf_name] {
                   return gguf::render_tensor_info(*model, t, hf_name) + shard_lines;
                 }));
      b.add_file(
          tensor_dir, "data",
          std::make_shared<ByteRange>(model->source, t.file_offset, t.bytes, t.bytes_present));
      add_decoded_files(b, tensor_dir, model, t);  // data.f32, data.npy
    }
  }
}

}  // namespace

std::shared_ptr<const Tree> build_model_tree(const gguf::ModelSet& models, const Owner& owner,
                                             const TreeOptions& options) {
  const gguf::ModelPtr& model = models.first();  // the metadata's model
  TreeAttributes attributes;
  attributes.uid = owner.uid;
  attributes.gid = owner.gid;
  attributes.mtime = latest_mtime(models);
  attributes.backing_bytes = models.total_file_size();
  TreeBuilder b(attributes);
  b.add_file(Tree::kRoot, "summary.txt",
             std::make_shared<LazyText>([models] { return gguf::render_set_summary(models); }));
  b.add_file(Tree::kRoot, "model.gguf", model_file_content(models));
  auto hf_view =
      std::make_shared<const gguf::hf::HfView>(gguf::hf::plan_hf_view(models, options.hf_dtype));
  add_index_files(b, models.shards, hf_view);  // metadata.json, tensors.tsv, tensors.json
  add_metadata(b, model);
  add_tensors(b, models, hf_view->hf_names);
  add_hf_tree(b, models, hf_view);     // hf/
  add_model_xattrs(b, models.shards);  // user.gguf.* on metadata/ files and tensors/ dirs
  // The models, and the view whose names the info files refer to.
  b.keep_alive(std::make_shared<const std::pair<gguf::ModelSet, std::shared_ptr<const void>>>(
      models, hf_view));
  return std::move(b).finish();
}

std::shared_ptr<const Tree> build_model_tree(gguf::ModelPtr model, const Owner& owner,
                                             const TreeOptions& options) {
  return build_model_tree(gguf::single_model(std::move(model)), owner, options);
}

}  // namespace gguffs
