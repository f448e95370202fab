#include "fs/tree/index_files.hpp"

#include <memory>

#include "fs/tree/content_text.hpp"
#include "gguf/render/render_json.hpp"

namespace gguffs {

namespace {

std::vector<const gguf::Model*> raw_pointers(const std::vector<gguf::ModelPtr>& shards) {
  std::vector<const gguf::Model*> models;
  for (const gguf::ModelPtr& m : shards) models.push_back(m.get());
  return models;
}

}  // namespace

void add_index_files(TreeBuilder& b, const std::vector<gguf::ModelPtr>& shards,
                     std::shared_ptr<const gguf::hf::HfView> hf_view) {
  if (shards.empty()) return;
  // The lambdas own the models, so the raw pointers stay valid.
  const gguf::ModelPtr first = shards.front();
  b.add_file(Tree::kRoot, "metadata.json",
             std::make_shared<LazyText>([first] { return gguf::render_metadata_json(*first); }));
  b.add_file(Tree::kRoot, "tensors.tsv", std::make_shared<LazyText>([shards, hf_view] {
               return gguf::render_tensors_tsv(raw_pointers(shards), hf_view->hf_names);
             }));
  b.add_file(Tree::kRoot, "tensors.json", std::make_shared<LazyText>([shards, hf_view] {
               return gguf::render_tensors_json(raw_pointers(shards), hf_view->hf_names);
             }));
}

}  // namespace gguffs
