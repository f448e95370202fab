// The tree of the alltypes fixture, without mounting: names, sizes and where data reads point.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <string>

#include "fs/tree/content_range.hpp"
#include "fs/tree/model_tree.hpp"
#include "gguf/parser.hpp"
#include "tests/support/test_support.hpp"

namespace gguffs {
namespace {

// The fixture's tensor infos end at byte 5275 (read off the file); data starts at the next
// multiple of the default alignment, 32.
constexpr uint64_t kDataOffset = 5280;

// The file names the manifest's unusual tensor names must get (names.hpp's rules).
const std::map<std::string, std::string> kUnusualNames = {
    {"odd/slash/name", "odd%2Fslash%2Fname"},
    {"..", "%2E%2E"},
    {"100%", "100%25"},
    {"тензор.weight", "тензор.weight"},
    {"with space.weight", "with space.weight"},
};

std::string expected_name(const std::string& tensor) {
  auto it = kUnusualNames.find(tensor);
  return it == kUnusualNames.end() ? tensor : it->second;
}

class AlltypesTree : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = gguf::parse_file(test_support::data_file("alltypes/alltypes.gguf").string());
    tree_ = build_model_tree(model_, Owner{getuid(), getgid()});
  }
  gguf::ModelPtr model_;
  std::shared_ptr<const Tree> tree_;
};

TEST_F(AlltypesTree, TopLevelLayout) {
  const Node& root = tree_->node(Tree::kRoot);
  ASSERT_EQ(root.children.size(), 8u);  // + metadata.json, tensors.tsv, tensors.json, hf
  EXPECT_TRUE(tree_->find("summary.txt").has_value());
  EXPECT_TRUE(tree_->node(*tree_->find("metadata")).is_dir());
  EXPECT_TRUE(tree_->node(*tree_->find("tensors")).is_dir());
  const auto whole = tree_->find("model.gguf");
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(tree_->stat_of(*whole).st_size, 466336);  // the fixture's size
  EXPECT_EQ(tree_->stat_of(*tree_->find("tensors")).st_nlink, 2u + 52u);
  EXPECT_EQ(tree_->stat_of(Tree::kRoot).st_nlink, 5u);  // . .. metadata tensors hf
}

TEST_F(AlltypesTree, EveryTensorHasInfoAndDataAtItsAbsoluteOffset) {
  const auto manifest = test_support::alltypes_manifest();
  ASSERT_EQ(manifest.size(), 52u);
  const auto tensors = *tree_->find("tensors");
  ASSERT_EQ(tree_->node(tensors).children.size(), manifest.size());
  uint64_t offset = 0;  // tensors are stored in manifest order, each aligned to 32
  for (const auto& row : manifest) {
    SCOPED_TRACE(row.name);
    const auto dir = tree_->lookup(tensors, expected_name(row.name));
    ASSERT_TRUE(dir.has_value());
    EXPECT_EQ(tree_->node(*dir).original, row.name);
    EXPECT_TRUE(tree_->lookup(*dir, "info").has_value());
    const auto data = tree_->lookup(*dir, "data");
    ASSERT_TRUE(data.has_value());
    const FileContent& c = *tree_->node(*data).content;
    EXPECT_EQ(c.size(), row.bytes);
    EXPECT_EQ(tree_->stat_of(*data).st_size, static_cast<off_t>(row.bytes));
    EXPECT_EQ(tree_->stat_of(*data).st_blocks, static_cast<blkcnt_t>((row.bytes + 511) / 512));

    ReadBuffer out(row.bytes);
    c.read(0, row.bytes + 100, out);
    ASSERT_EQ(out.pieces().size(), 1u);
    EXPECT_TRUE(out.pieces()[0].is_file());
    EXPECT_EQ(out.pieces()[0].file_offset, kDataOffset + offset);
    EXPECT_EQ(out.pieces()[0].size, row.bytes);
    if (row.type_name == "f32") {
      // F32 data is stored as is: it must equal the reference values byte for byte.
      EXPECT_EQ(out.to_string(),
                test_support::read_file(test_support::data_file("alltypes/" + row.ref_file)));
    }
    offset = (offset + row.bytes + 31) / 32 * 32;
  }
}

TEST_F(AlltypesTree, MetadataFilesFollowFileOrder) {
  const auto metadata = *tree_->find("metadata");
  const auto& children = tree_->node(metadata).children;
  ASSERT_EQ(children.size(), 46u);
  EXPECT_EQ(tree_->node(children[0]).name, "general.architecture");
  EXPECT_EQ(tree_->node(children[1]).name, "general.name");
  EXPECT_EQ(tree_->node(children[45]).name, "tokenizer.chat_template");
  EXPECT_TRUE(tree_->lookup(metadata, "odd%2Fkey%2Fwith%2Fslashes").has_value());
  // The 300-byte key: cut to 246 bytes plus "~" and the hash of the full key.
  const auto long_key = tree_->lookup(metadata, std::string(246, 'k') + "~dcfcfcf1");
  ASSERT_TRUE(long_key.has_value());
  EXPECT_EQ(tree_->node(*long_key).original, std::string(300, 'k'));

  ReadBuffer out(64);
  tree_->node(children[0]).content->read(0, 64, out);
  EXPECT_EQ(out.to_string(), "llama");  // a STRING's exact bytes
  const auto u32 = tree_->lookup(metadata, "test.u32");
  ASSERT_TRUE(u32.has_value());
  EXPECT_EQ(tree_->stat_of(*u32).st_size, 11);  // "4294967295\n"
}

}  // namespace
}  // namespace gguffs
