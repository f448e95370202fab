// Extended attributes in the tree (TreeBuilder::add_xattr, Tree::xattr, Tree::xattr_names) and
// the ones a model's tree carries (fs/model_xattrs.hpp), plus the index files at its root.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "fs/tree/content_text.hpp"
#include "fs/tree/model_tree.hpp"
#include "tests/support/model_builders.hpp"

namespace {

using gguf::OwnedValue;
using gguffs::Tree;
using gguffs::TreeBuilder;

std::string xattr_or_none(const Tree& tree, const std::string& path, const std::string& name) {
  const auto i = tree.find(path);
  if (!i) return "<no node>";
  const std::string* v = tree.xattr(*i, name);
  return v ? *v : "<none>";
}

TEST(TreeXattrs, AddReplaceListInOrder) {
  TreeBuilder b({});
  const auto f = b.add_file(Tree::kRoot, "f",
                            std::make_shared<gguffs::LazyText>([] { return std::string("x"); }));
  b.add_xattr(f, "user.b", "1");
  b.add_xattr(f, "user.a", "2");
  b.add_xattr(f, "user.b", "3");
  const auto tree = std::move(b).finish();
  EXPECT_EQ(*tree->xattr(f, "user.b"), "3");
  EXPECT_EQ(*tree->xattr(f, "user.a"), "2");
  EXPECT_EQ(tree->xattr(f, "user.c"), nullptr);
  EXPECT_EQ(tree->xattr_names(f), std::string("user.b\0user.a\0", 14));
  EXPECT_EQ(tree->xattr_names(Tree::kRoot), "");
}

class SmallModelTree : public ::testing::Test {
 protected:
  void SetUp() override {
    gguf::Writer w = test_support::small_model_writer();
    w.add("odd/key", OwnedValue::u8(7));
    w.add("general.name", OwnedValue::string("again"));
    w.add("nested", OwnedValue::array_of_arrays({OwnedValue::i32_array({1})}));
    w.add_tensor("a/b", {2}, gguf::type_id::I8, std::string(2, '\0'));
    model_ = test_support::parse_bytes(w.to_bytes());
    tree_ = gguffs::build_model_tree(model_, {});
  }
  gguf::ModelPtr model_;
  std::shared_ptr<const Tree> tree_;
};

TEST_F(SmallModelTree, MetadataFilesCarryTypeCountAndKey) {
  const Tree& t = *tree_;
  EXPECT_EQ(xattr_or_none(t, "metadata/general.architecture", "user.gguf.type"), "STRING");
  EXPECT_EQ(xattr_or_none(t, "metadata/general.architecture", "user.gguf.count"), "<none>");
  EXPECT_EQ(xattr_or_none(t, "metadata/general.architecture", "user.gguf.key"), "<none>");
  EXPECT_EQ(xattr_or_none(t, "metadata/llama.block_count", "user.gguf.type"), "UINT32");
  EXPECT_EQ(xattr_or_none(t, "metadata/tokenizer.ggml.tokens", "user.gguf.type"), "ARRAY[STRING]");
  EXPECT_EQ(xattr_or_none(t, "metadata/tokenizer.ggml.tokens", "user.gguf.count"), "4");
  EXPECT_EQ(xattr_or_none(t, "metadata/tokenizer.ggml.scores", "user.gguf.type"), "ARRAY[FLOAT32]");
  EXPECT_EQ(xattr_or_none(t, "metadata/nested", "user.gguf.type"), "ARRAY[ARRAY]");
  EXPECT_EQ(xattr_or_none(t, "metadata/nested", "user.gguf.count"), "1");
  // Encoded and suffixed names keep their key.
  EXPECT_EQ(xattr_or_none(t, "metadata/odd%2Fkey", "user.gguf.key"), "odd/key");
  EXPECT_EQ(xattr_or_none(t, "metadata/odd%2Fkey", "user.gguf.type"), "UINT8");
  EXPECT_EQ(xattr_or_none(t, "metadata/general.name~2", "user.gguf.key"), "general.name");
  EXPECT_EQ(xattr_or_none(t, "metadata/general.name", "user.gguf.key"), "<none>");
  EXPECT_EQ(t.xattr_names(*t.find("metadata/tokenizer.ggml.tokens")),
            std::string("user.gguf.type\0user.gguf.count\0", 31));
}

TEST_F(SmallModelTree, TensorDirectoriesCarryTheirType) {
  const Tree& t = *tree_;
  EXPECT_EQ(xattr_or_none(t, "tensors/token_embd.weight", "user.gguf.type"), "F32");
  EXPECT_EQ(xattr_or_none(t, "tensors/blk.0.attn_norm.weight", "user.gguf.type"), "F16");
  EXPECT_EQ(xattr_or_none(t, "tensors/output.weight", "user.gguf.type"), "Q8_0");
  EXPECT_EQ(xattr_or_none(t, "tensors/a%2Fb", "user.gguf.type"), "I8");
  EXPECT_EQ(xattr_or_none(t, "tensors/a%2Fb", "user.gguf.name"), "a/b");
  EXPECT_EQ(xattr_or_none(t, "tensors/output.weight/info", "user.gguf.type"), "<none>");
  EXPECT_EQ(t.xattr_names(Tree::kRoot), "");
}

TEST_F(SmallModelTree, IndexFilesAtTheRoot) {
  const Tree& t = *tree_;
  for (const char* name : {"metadata.json", "tensors.tsv", "tensors.json"}) {
    const auto i = t.find(name);
    ASSERT_TRUE(i) << name;
    EXPECT_FALSE(t.node(*i).is_dir());
  }
  const auto tsv = t.find("tensors.tsv");
  gguffs::ReadBuffer buf(1 << 16);
  t.node(*tsv).content->read(0, 1 << 16, buf);
  const std::string text = buf.to_string();
  // The header and one line per tensor (4), the new one escaped as its name is.
  EXPECT_EQ(text.rfind("name\ttype\tne\tshape\telements\tbytes\toffset\tfile_offset\thf_name\n", 0),
            0u);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5);
  EXPECT_NE(text.find("\na/b\tI8\t2\t2\t2\t2\t"), std::string::npos) << text;
}

}  // namespace
