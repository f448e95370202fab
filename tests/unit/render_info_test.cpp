// tensors/<name>/info texts for hand-made tensor infos; sizes from the ggml type table.
#include <gtest/gtest.h>

#include <string>

#include "gguf/render/render.hpp"

namespace {

gguf::TensorInfo tensor(std::string_view name, uint32_t type_id, std::initializer_list<uint64_t> ne,
                        uint64_t elements, uint64_t bytes) {
  gguf::TensorInfo t;
  t.name = name;
  t.type_id = type_id;
  t.n_dims = static_cast<uint32_t>(ne.size());
  size_t i = 0;
  for (uint64_t n : ne) t.ne[i++] = n;
  t.elements = elements;
  t.bytes = bytes;
  t.bytes_present = bytes;
  t.type_known = gguf::is_usable_tensor_type(type_id);
  return t;
}

TEST(RenderTensorInfo, QuantizedMatrix) {
  gguf::Model model;
  // 256 x 256 Q4_K: 65,536 elements in 256 blocks of 144 bytes.
  gguf::TensorInfo t = tensor("blk.0.attn_q.weight", gguf::type_id::Q4_K, {256, 256}, 65536, 36864);
  t.offset = 1234;
  t.file_offset = 5678;
  EXPECT_EQ(gguf::render_tensor_info(model, t),
            "name: blk.0.attn_q.weight\n"
            "type: Q4_K\n"
            "type_id: 12\n"
            "ne: 256 256\n"
            "shape: 256 256\n"
            "elements: 65536\n"
            "bytes: 36864\n"
            "bits_per_weight: 4.5\n"
            "offset: 1234\n"
            "file_offset: 5678\n"
            "npy_dtype: <f4\n");
}

TEST(RenderTensorInfo, ShapeIsNeReversed) {
  gguf::Model model;
  gguf::TensorInfo t = tensor("x", gguf::type_id::F16, {4, 3, 2}, 24, 48);
  t.offset = 0;
  t.file_offset = 96;
  EXPECT_EQ(gguf::render_tensor_info(model, t),
            "name: x\ntype: F16\ntype_id: 1\nne: 4 3 2\nshape: 2 3 4\nelements: 24\nbytes: 48\n"
            "bits_per_weight: 16\noffset: 0\nfile_offset: 96\nnpy_dtype: <f2\n");
}

TEST(RenderTensorInfo, BitsPerWeightFromTheBlockSizes) {
  gguf::Model model;
  auto bpw_line = [&](uint32_t type_id) {
    const std::string text =
        gguf::render_tensor_info(model, tensor("t", type_id, {256}, 256, 1000));
    const size_t at = text.find("bits_per_weight: ");
    if (at == std::string::npos) return std::string("(none)");
    return text.substr(at + 17, text.find('\n', at) - at - 17);
  };
  EXPECT_EQ(bpw_line(gguf::type_id::F32), "32");
  EXPECT_EQ(bpw_line(gguf::type_id::Q8_0), "8.5");        // 34 bytes per 32
  EXPECT_EQ(bpw_line(gguf::type_id::Q6_K), "6.5625");     // 210 bytes per 256
  EXPECT_EQ(bpw_line(gguf::type_id::IQ2_XXS), "2.0625");  // 66 bytes per 256
  EXPECT_EQ(bpw_line(gguf::type_id::TQ1_0), "1.6875");    // 54 bytes per 256
}

TEST(RenderTensorInfo, UnknownAndRemovedTypes) {
  gguf::Model model;
  // Unknown id: the size is the gap the parser measured, so bits per weight is bytes*8/elements.
  EXPECT_EQ(gguf::render_tensor_info(model, tensor("u", 99, {50}, 50, 100)),
            "name: u\ntype: unknown\ntype_id: 99\nne: 50\nshape: 50\nelements: 50\nbytes: 100\n"
            "bits_per_weight: 16\noffset: 0\nfile_offset: 0\n"
            "decoded: none (unknown type id 99)\n");
  // Removed id 4: its table name; no elements, so no bits per weight.
  EXPECT_EQ(gguf::render_tensor_info(model, tensor("r", 4, {0}, 0, 0)),
            "name: r\ntype: Q4_2 (removed)\ntype_id: 4\nne: 0\nshape: 0\nelements: 0\nbytes: 0\n"
            "offset: 0\nfile_offset: 0\ndecoded: none (type id 4 was removed from ggml)\n");
}

TEST(RenderTensorInfo, NameEscapedAndWarningsListed) {
  gguf::Model model;
  gguf::TensorInfo t = tensor("a\nb\\c\xff", gguf::type_id::F32, {2}, 2, 8);
  t.warnings = {"data runs past the end of the file", "offset is not aligned to 32"};
  EXPECT_EQ(gguf::render_tensor_info(model, t),
            "name: a\\nb\\\\c\\xff\ntype: F32\ntype_id: 0\nne: 2\nshape: 2\nelements: 2\nbytes: 8\n"
            "bits_per_weight: 32\noffset: 0\nfile_offset: 0\nnpy_dtype: <f4\n"
            "warning: data runs past the end of the file\n"
            "warning: offset is not aligned to 32\n");
}

}  // namespace
