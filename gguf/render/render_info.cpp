// tensors/<name>/info: one "key: value" line per fact about a tensor.
#include <fmt/format.h>

#include <iterator>

#include "gguf/decoded_view.hpp"
#include "gguf/render/render.hpp"
#include "gguf/render/render_text.hpp"

namespace gguf {

std::string render_tensor_info(const Model& model, const TensorInfo& tensor,
                               std::string_view hf_name) {
  using render_detail::append_each_line;
  using render_detail::append_escaped_line;
  std::string out;
  auto line = std::back_inserter(out);

  out.append("name: ");
  append_escaped_line(out, tensor.name);  // reversible, so the exact name can be recovered
  out.push_back('\n');
  if (!hf_name.empty()) fmt::format_to(line, "hf_name: {}\n", hf_name);

  const auto type = tensor_type(tensor.type_id);
  fmt::format_to(line, "type: {}\ntype_id: {}\n", type ? type->name : "unknown", tensor.type_id);

  const uint32_t n_dims = tensor.n_dims < tensor.ne.size() ? tensor.n_dims : tensor.ne.size();
  out.append("ne:");
  for (uint32_t i = 0; i < n_dims; ++i) fmt::format_to(line, " {}", tensor.ne[i]);
  out.append("\nshape:");
  for (uint32_t i = n_dims; i-- > 0;) fmt::format_to(line, " {}", tensor.ne[i]);
  fmt::format_to(line, "\nelements: {}\nbytes: {}\n", tensor.elements, tensor.bytes);

  if (is_usable_tensor_type(tensor.type_id)) {
    const double bits = type->block_bytes * 8.0 / type->block_size;
    fmt::format_to(line, "bits_per_weight: {}\n", format_double(bits));
  } else if (tensor.elements != 0) {
    // Unknown or removed type: the size is a guess (the gap to the next tensor), so is this.
    const double bits =
        static_cast<double>(tensor.bytes) * 8.0 / static_cast<double>(tensor.elements);
    fmt::format_to(line, "bits_per_weight: {}\n", format_double(bits));
  }

  fmt::format_to(line, "offset: {}\nfile_offset: {}\n", tensor.offset, tensor.file_offset);
  // data.f32 / data.npy: their dtype, or why the tensor has none.
  if (const DecodedView decoded = decoded_view(model, tensor); decoded.available)
    fmt::format_to(line, "npy_dtype: {}\n", decoded.npy_dtype);
  else
    fmt::format_to(line, "decoded: none ({})\n", decoded.reason);
  append_each_line(out, "warning: ", tensor.warnings);
  return out;
}

}  // namespace gguf
