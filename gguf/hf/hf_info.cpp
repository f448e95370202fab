// hf/<name>/info (declared in hf_view.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>

#include "gguf/hf/hf_view.hpp"
#include "gguf/render/render_text.hpp"
#include "gguf/types.hpp"

namespace gguf::hf {

std::string render_hf_tensor_info(const HfTensor& h) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "hf_name: {}\ngguf_name: ", h.name);
  render_detail::append_escaped_line(out, h.tensor->name);
  fmt::format_to(it, "\ndtype: {}\nshape: {}\nelements: {}\nbytes: {}\n", dtype_name(h.dtype),
                 fmt::join(h.shape, " "), h.tensor->elements, h.bytes());
  if (h.stored_bytes) {
    out.append("values: stored bytes\n");
  } else {
    const auto type = tensor_type(h.tensor->type_id);
    fmt::format_to(it, "values: decoded from {}\n", type ? type->name : "unknown");
  }
  if (h.unpermute_heads != 0)
    fmt::format_to(it, "rows: un-permuted from llama.cpp's Q/K order ({} heads)\n",
                   h.unpermute_heads);
  else
    out.append("rows: as stored\n");
  fmt::format_to(it, "data_offsets: {} {}\nnpy_dtype: {}\n", h.offset, h.offset + h.bytes(),
                 h.dtype == Dtype::F16 ? "<f2" : "<f4");
  return out;
}

}  // namespace gguf::hf
