// Which tensors get data.f32 / data.npy, data.npy's dtype, and the info line saying so.
#include <gtest/gtest.h>

#include <string>

#include "gguf/decoded_view.hpp"
#include "gguf/render/render.hpp"
#include "gguf/types.hpp"

namespace {

gguf::TensorInfo tensor(uint32_t type_id, uint64_t ne0, uint64_t bytes) {
  gguf::TensorInfo t;
  t.name = "t";
  t.type_id = type_id;
  t.n_dims = 1;
  t.ne[0] = ne0;
  t.elements = ne0;
  t.bytes = bytes;
  t.bytes_present = bytes;
  t.type_known = gguf::is_usable_tensor_type(type_id);
  return t;
}

TEST(DecodedView, StoredDtypesForPlainTypes) {
  gguf::Model le;
  const std::pair<uint32_t, const char*> cases[] = {
      {gguf::type_id::F32, "<f4"}, {gguf::type_id::F16, "<f2"}, {gguf::type_id::F64, "<f8"},
      {gguf::type_id::I8, "|i1"},  {gguf::type_id::I16, "<i2"}, {gguf::type_id::I32, "<i4"},
      {gguf::type_id::I64, "<i8"},
  };
  for (const auto& [id, dtype] : cases) {
    const auto v = gguf::decoded_view(le, tensor(id, 8, 8 * gguf::tensor_type(id)->block_bytes));
    EXPECT_TRUE(v.available) << dtype;
    EXPECT_TRUE(v.raw_payload) << dtype;
    EXPECT_EQ(v.npy_dtype, dtype);
  }
}

TEST(DecodedView, Float32ForBf16AndQuantized) {
  gguf::Model le;
  for (uint32_t id : {gguf::type_id::BF16, gguf::type_id::Q4_0, gguf::type_id::Q4_K,
                      gguf::type_id::IQ2_XXS, gguf::type_id::Q8_K, gguf::type_id::Q2_0}) {
    const auto type = gguf::tensor_type(id);
    const auto v =
        gguf::decoded_view(le, tensor(id, 256, 256 / type->block_size * type->block_bytes));
    EXPECT_TRUE(v.available) << type->name;
    EXPECT_FALSE(v.raw_payload) << type->name;
    EXPECT_EQ(v.npy_dtype, "<f4") << type->name;
  }
}

TEST(DecodedView, BigEndianFiles) {
  gguf::Model be;
  be.big_endian = true;
  auto view = [&](uint32_t id, uint64_t bytes) {
    return gguf::decoded_view(be, tensor(id, 32, bytes));
  };
  // Plain numbers keep their stored bytes; numpy reads them as big-endian.
  EXPECT_EQ(view(gguf::type_id::F32, 128).npy_dtype, ">f4");
  EXPECT_TRUE(view(gguf::type_id::F32, 128).raw_payload);
  EXPECT_EQ(view(gguf::type_id::F16, 64).npy_dtype, ">f2");
  EXPECT_EQ(view(gguf::type_id::I64, 256).npy_dtype, ">i8");
  EXPECT_EQ(view(gguf::type_id::I8, 32).npy_dtype, "|i1");
  EXPECT_EQ(view(gguf::type_id::BF16, 64).npy_dtype, "<f4");
  EXPECT_FALSE(view(gguf::type_id::BF16, 64).raw_payload);
  const auto q = view(gguf::type_id::Q8_0, 34);
  EXPECT_FALSE(q.available);
  EXPECT_EQ(q.reason, "Q8_0 blocks in a big-endian file");
}

TEST(DecodedView, NoneAndWhy) {
  gguf::Model m;
  EXPECT_EQ(gguf::decoded_view(m, tensor(gguf::type_id::Q8_1, 32, 36)).reason,
            "Q8_1 has no ggml dequantizer");
  EXPECT_EQ(gguf::decoded_view(m, tensor(99, 32, 100)).reason, "unknown type id 99");
  EXPECT_EQ(gguf::decoded_view(m, tensor(5, 32, 100)).reason, "type id 5 was removed from ggml");
  EXPECT_EQ(gguf::decoded_view(m, tensor(gguf::type_id::Q4_0, 48, 36)).reason,
            "row length 48 is not a multiple of Q4_0's block size 32");
  gguf::TensorInfo gone = tensor(gguf::type_id::F32, 8, 32);
  gone.bytes_present = 0;
  EXPECT_EQ(gguf::decoded_view(m, gone).reason, "the file holds none of this tensor's data");
  gguf::TensorInfo partial = tensor(gguf::type_id::Q4_0, 64, 36);
  partial.bytes_present = 20;
  EXPECT_TRUE(gguf::decoded_view(m, partial).available) << "missing blocks give EIO instead";
  for (const auto& t : {tensor(gguf::type_id::Q8_1, 32, 36), tensor(99, 32, 100), gone})
    EXPECT_FALSE(gguf::decoded_view(m, t).available);
}

TEST(DecodedView, InfoSaysWhichOrWhyNot) {
  gguf::Model m;
  const std::string q81 = gguf::render_tensor_info(m, tensor(gguf::type_id::Q8_1, 32, 36));
  EXPECT_NE(q81.find("\ndecoded: none (Q8_1 has no ggml dequantizer)\n"), std::string::npos) << q81;
  EXPECT_EQ(q81.find("npy_dtype"), std::string::npos);
  const std::string i64 = gguf::render_tensor_info(m, tensor(gguf::type_id::I64, 4, 32));
  EXPECT_NE(i64.find("\nnpy_dtype: <i8\n"), std::string::npos) << i64;
  EXPECT_EQ(i64.find("decoded:"), std::string::npos);
}

}  // namespace
