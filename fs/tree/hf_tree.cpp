#include "fs/tree/hf_tree.hpp"

#include <vector>

#include "fs/tree/content_converted.hpp"
#include "fs/tree/content_decoded.hpp"
#include "fs/tree/content_lazy.hpp"
#include "fs/tree/content_range.hpp"
#include "fs/tree/content_rows.hpp"
#include "fs/tree/content_segmented.hpp"
#include "fs/tree/content_text.hpp"
#include "gguf/npy.hpp"

namespace gguffs {

namespace {

using gguf::hf::Dtype;
using gguf::hf::HfTensor;

// hf/<name>/data: stored bytes spliced from the model file, or decoded (and converted) values;
// llama's Q/K rows put back in Hugging Face order.
std::shared_ptr<const FileContent> data_content(const gguf::ModelSet& models, const HfTensor& h) {
  const gguf::ModelPtr& model = models.shards[h.shard];
  const gguf::TensorInfo& t = *h.tensor;
  std::shared_ptr<const FileContent> data;
  if (h.stored_bytes) {
    data = std::make_shared<ByteRange>(model->source, t.file_offset, t.bytes, t.bytes_present);
  } else {
    data = std::make_shared<DecodedFloats>(model->source, t, model->big_endian);
    if (h.dtype != Dtype::F32) data = std::make_shared<ConvertedFloats>(data, Dtype::F32, h.dtype);
  }
  if (h.unpermute_heads != 0)
    data = std::make_shared<UnpermutedRows>(std::move(data), h.rows, h.unpermute_heads);
  return data;
}

std::shared_ptr<const FileContent> npy_content(const HfTensor& h,
                                               std::shared_ptr<const FileContent> data) {
  // numpy has no bfloat16: those values are widened to float32, exactly.
  if (h.dtype == Dtype::BF16)
    data = std::make_shared<ConvertedFloats>(data, Dtype::BF16, Dtype::F32);
  const char* descr = h.dtype == Dtype::F16 ? "<f2" : "<f4";
  auto header = std::make_shared<LazyText>(
      [descr, shape = h.shape] { return gguf::npy_header(descr, shape); });
  return std::make_shared<Segmented>(
      std::vector<std::shared_ptr<const FileContent>>{std::move(header), std::move(data)});
}

}  // namespace

void add_hf_tree(TreeBuilder& b, const gguf::ModelSet& models,
                 std::shared_ptr<const gguf::hf::HfView> view) {
  const auto dir = b.add_directory(Tree::kRoot, "hf");
  if (view->config_json)
    b.add_file(dir, "config.json",
               std::make_shared<LazyText>([view] { return *view->config_json; }));

  std::vector<std::shared_ptr<const FileContent>> parts;  // model.safetensors after its header
  std::vector<std::pair<const HfTensor*, std::shared_ptr<const FileContent>>> datas;
  for (const HfTensor& h : view->tensors) {
    parts.push_back(data_content(models, h));
    datas.emplace_back(&h, parts.back());
  }
  b.add_file(dir, "model.safetensors", std::make_shared<LazyContent>([view, parts] {
               std::vector<std::shared_ptr<const FileContent>> all;
               all.reserve(parts.size() + 1);
               all.push_back(std::make_shared<LazyText>(
                   [view] { return gguf::hf::safetensors_header(*view); }));
               all.insert(all.end(), parts.begin(), parts.end());
               return std::make_shared<Segmented>(std::move(all));
             }));
  b.add_file(dir, "unmapped.txt", std::make_shared<LazyText>([view] { return view->unmapped; }));

  for (const auto& [h, data] : datas) {
    const auto tensor_dir = b.add_directory(dir, h->name);
    b.add_file(tensor_dir, "info", std::make_shared<LazyText>([view, h = h] {
                 return gguf::hf::render_hf_tensor_info(*h);
               }));
    b.add_file(tensor_dir, "data", data);
    b.add_file(tensor_dir, "data.npy", npy_content(*h, data));
  }
}

}  // namespace gguffs
