// gguffs diff's engine on models written by gguf::Writer: identical models, one changed key, one
// changed tensor, an added and a removed tensor, another type; the JSON form read back with
// nlohmann. (The command, its exit codes and a split model against its merged form:
// tests/mount/diff_cli_test.cpp.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "gguf/diff/model_diff.hpp"
#include "gguf/parser.hpp"
#include "gguf/split.hpp"
#include "gguf/writer.hpp"
#include "tests/support/test_support.hpp"

namespace {

namespace ids = gguf::type_id;
using gguf::OwnedValue;

struct Spec {
  std::string name = "tiny";
  std::vector<std::string> tokens = {"a", "b", "c"};
  std::string q8_bytes = std::string(68, '\x05');
  uint32_t first_type = ids::F32;
  bool extra_tensor = false;
  bool drop_q8 = false;
};

gguf::ModelSet write(const test_support::TempDir& dir, const std::string& file, const Spec& s) {
  gguf::Writer w;
  w.add("general.architecture", OwnedValue::string("llama"));
  w.add("general.name", OwnedValue::string(s.name));
  w.add("llama.context_length", OwnedValue::u32(4096));
  w.add("tokenizer.ggml.tokens", OwnedValue::string_array(s.tokens));
  w.add_tensor("first", {16}, s.first_type, std::string(s.first_type == ids::F32 ? 64 : 32, '\0'));
  if (!s.drop_q8) w.add_tensor("blk.0.q8", {64}, ids::Q8_0, s.q8_bytes);
  if (s.extra_tensor) w.add_tensor("extra", {8}, ids::F32, std::string(32, '\x01'));
  const auto path = dir / file;
  w.write_file(path.string());
  return gguf::open_model_set(path.string());
}

struct Pair {
  test_support::TempDir dir;
  gguf::ModelDiff diff;
  std::string text;
  nlohmann::json json;
};

std::unique_ptr<Pair> compare(const Spec& a, const Spec& b) {
  auto p = std::make_unique<Pair>();
  p->diff = gguf::diff_models(write(p->dir, "a.gguf", a), write(p->dir, "b.gguf", b), 2);
  p->text = gguf::render_diff_text(p->diff);
  p->json = nlohmann::json::parse(gguf::render_diff_json(p->diff));
  return p;
}

TEST(ModelDiff, IdenticalModelsAreTheSame) {
  const auto p = compare({}, {});
  EXPECT_TRUE(p->diff.same());
  EXPECT_EQ(p->text,
            "same: keys 0 added, 0 removed, 0 changed, 4 same; tensors 0 added, 0 removed, 0 "
            "other type or shape, 0 other bytes, 2 same\n");
  EXPECT_EQ(p->json["same"], true);
  EXPECT_EQ(p->json["keys"].size(), 0u);
  EXPECT_EQ(p->json["total"]["tensors_same"], 2);
  EXPECT_EQ(p->diff.bytes_compared, 64u + 68u);
}

TEST(ModelDiff, OneChangedKey) {
  Spec b;
  b.name = "tinier";
  const auto p = compare({}, b);
  EXPECT_FALSE(p->diff.same());
  EXPECT_EQ(p->text,
            "~ key general.name: STRING tiny -> STRING tinier\n"
            "different: keys 0 added, 0 removed, 1 changed, 3 same; tensors 0 added, 0 removed, "
            "0 other type or shape, 0 other bytes, 2 same\n");
  EXPECT_EQ(p->json["keys"][0]["change"], "changed");
  EXPECT_EQ(p->json["keys"][0]["key"], "general.name");
  EXPECT_EQ(p->json["keys"][0]["a"], "STRING tiny");
  EXPECT_EQ(p->json["keys"][0]["b"], "STRING tinier");
}

TEST(ModelDiff, LongValuesShowSizesAndHashes) {
  Spec b;
  b.tokens = {"a", "b", "d"};
  const auto p = compare({}, b);
  ASSERT_EQ(p->diff.keys.size(), 1u);
  // metadata/tokenizer.ggml.tokens holds "a\nb\nc\n": 6 bytes, whose SHA-256 (printf | sha256sum)
  // starts 880553fc.
  EXPECT_EQ(p->diff.keys[0].a, "ARRAY of 3 STRING, 6 bytes, sha256 880553fca8fcea94");
  EXPECT_EQ(p->diff.keys[0].b.substr(0, 35), "ARRAY of 3 STRING, 6 bytes, sha256 ");
  EXPECT_NE(p->diff.keys[0].a, p->diff.keys[0].b);
}

TEST(ModelDiff, OneChangedTensorNamesItsFirstDifferentByte) {
  Spec b;
  b.q8_bytes[37] = '\x06';
  b.q8_bytes[60] = '\x07';
  const auto p = compare({}, b);
  EXPECT_EQ(p->text,
            "~ tensor blk.0.q8: other bytes (Q8_0, ne 64), first difference at byte 37 of 68\n"
            "different: keys 0 added, 0 removed, 0 changed, 4 same; tensors 0 added, 0 removed, "
            "0 other type or shape, 1 other bytes, 1 same\n");
  EXPECT_EQ(p->json["tensors"][0]["change"], "bytes");
  EXPECT_EQ(p->json["tensors"][0]["first_difference"], 37);
}

TEST(ModelDiff, AddedRemovedAndRetypedTensors) {
  Spec a;
  a.drop_q8 = false;
  Spec b;
  b.extra_tensor = true;
  b.drop_q8 = true;
  b.first_type = ids::F16;
  const auto p = compare(a, b);
  EXPECT_EQ(p->text,
            "~ tensor first: F32, ne 16 -> F16, ne 16\n"
            "- tensor blk.0.q8 (Q8_0, ne 64)\n"
            "+ tensor extra (F32, ne 8)\n"
            "different: keys 0 added, 0 removed, 0 changed, 4 same; tensors 1 added, 1 removed, "
            "1 other type or shape, 0 other bytes, 0 same\n");
  EXPECT_EQ(p->json["total"]["tensors_added"], 1);
  EXPECT_EQ(p->json["total"]["tensors_removed"], 1);
  EXPECT_EQ(p->json["total"]["tensors_type_or_shape"], 1);
  EXPECT_EQ(p->json["tensors"][2]["b"], "F32, ne 8");
}

}  // namespace
