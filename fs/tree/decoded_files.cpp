#include "fs/tree/decoded_files.hpp"

#include "fs/tree/content_decoded.hpp"
#include "fs/tree/content_range.hpp"
#include "fs/tree/content_segmented.hpp"
#include "fs/tree/content_text.hpp"
#include "gguf/decoded_view.hpp"
#include "gguf/npy.hpp"

namespace gguffs {

void add_decoded_files(TreeBuilder& b, Tree::Index tensor_dir, const gguf::ModelPtr& model,
                       const gguf::TensorInfo& tensor) {
  const gguf::DecodedView view = gguf::decoded_view(*model, tensor);
  if (!view.available) return;
  auto floats = std::make_shared<DecodedFloats>(model->source, tensor, model->big_endian);
  b.add_file(tensor_dir, "data.f32", floats);
  auto header = std::make_shared<LazyText>([dtype = view.npy_dtype, &tensor] {
    return gguf::npy_header(dtype, gguf::numpy_shape(tensor));
  });
  // Types numpy stores as they are: the stored bytes, spliced like `data`.
  std::shared_ptr<const FileContent> payload =
      view.raw_payload ? std::make_shared<ByteRange>(model->source, tensor.file_offset,
                                                     tensor.bytes, tensor.bytes_present)
                       : std::shared_ptr<const FileContent>(floats);
  b.add_file(tensor_dir, "data.npy",
             std::make_shared<Segmented>(std::vector<std::shared_ptr<const FileContent>>{
                 std::move(header), std::move(payload)}));
}

}  // namespace gguffs
