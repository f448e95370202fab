// Every tensor of fixtures/alltypes/alltypes.gguf (all decodable types, several shapes) decodes
// to the float32 values ggml produced for it (ref/<index>.f32).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "gguf/decode/decode.hpp"
#include "gguf/parser.hpp"
#include "gguf/types.hpp"
#include "tests/support/test_support.hpp"

namespace {

TEST(DecodeAlltypes, EveryTensorMatchesGgml) {
  const auto path = test_support::data_file("alltypes/alltypes.gguf");
  const auto model = gguf::parse_file(path.string());
  const std::string file = test_support::read_file(path);
  const auto manifest = test_support::alltypes_manifest();
  ASSERT_EQ(model->tensors.size(), manifest.size());
  std::set<uint32_t> types_seen;
  for (const auto& row : manifest) {
    SCOPED_TRACE(row.name);
    const gguf::TensorInfo& info = model->tensors.at(static_cast<size_t>(row.index));
    ASSERT_EQ(info.name, row.name);
    ASSERT_EQ(info.type_id, row.type_id);
    ASSERT_EQ(info.bytes, row.bytes);
    ASSERT_LE(info.file_offset + info.bytes, file.size());
    const auto type = gguf::tensor_type(row.type_id);
    ASSERT_TRUE(type.has_value());
    ASSERT_EQ(row.elements % type->block_size, 0u);
    const size_t n_blocks = row.elements / type->block_size;
    ASSERT_EQ(n_blocks * type->block_bytes, row.bytes);

    std::vector<float> got(row.elements);
    gguf::decode_blocks(row.type_id,
                        reinterpret_cast<const uint8_t*>(file.data() + info.file_offset), n_blocks,
                        got.data());
    const std::string want =
        test_support::read_file(test_support::data_file("alltypes/" + row.ref_file));
    ASSERT_EQ(want.size(), 4 * row.elements);
    size_t mismatches = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      float w;
      std::memcpy(&w, want.data() + 4 * i, 4);
      if (std::memcmp(&got[i], &w, 4) != 0 && !(std::isnan(got[i]) && std::isnan(w))) {
        if (mismatches++ == 0) ADD_FAILURE() << "element " << i << ": " << got[i] << " != " << w;
      }
    }
    EXPECT_EQ(mismatches, 0u);
    types_seen.insert(row.type_id);
  }
  EXPECT_EQ(types_seen.size(), 33u) << "every decodable type but Q8_K is in the fixture";
}

}  // namespace
