#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fs/tree/content_text.hpp"
#include "fs/tree/tree.hpp"

namespace gguffs {
namespace {

std::shared_ptr<LazyText> text(std::string s) {
  return std::make_shared<LazyText>([s] { return s; });
}

TreeAttributes attributes() {
  TreeAttributes a;
  a.uid = 1234;
  a.gid = 5678;
  a.mtime = {1700000000, 5};
  a.backing_bytes = 1000;
  return a;
}

TEST(TreeBuilder, RootIsInodeOneAndIndexesAreStable) {
  TreeBuilder b(attributes());
  const auto d = b.add_directory(Tree::kRoot, "dir");
  const auto f = b.add_file(d, "file", text("hello"));
  auto tree = std::move(b).finish();
  EXPECT_EQ(tree->inode_of(Tree::kRoot), 1u);  // FUSE_ROOT_ID
  EXPECT_EQ(tree->index_of(1), Tree::kRoot);
  EXPECT_EQ(tree->index_of(tree->inode_of(f)), f);
  EXPECT_FALSE(tree->index_of(0).has_value());
  EXPECT_FALSE(tree->index_of(tree->size() + 1).has_value());
  EXPECT_EQ(tree->find("dir/file"), f);
  EXPECT_EQ(tree->path_of(f), "dir/file");
  EXPECT_EQ(tree->node(f).parent, d);
}

TEST(TreeBuilder, DuplicatesStayReachableUnderSuffixedNames) {
  TreeBuilder b(attributes());
  const auto a1 = b.add_file(Tree::kRoot, "a", text("1"));
  const auto a2 = b.add_file(Tree::kRoot, "a", text("2"));
  const auto a3 = b.add_file(Tree::kRoot, "a~2", text("3"));  // clashes with the renamed one
  const auto a4 = b.add_file(Tree::kRoot, "a", text("4"));
  auto tree = std::move(b).finish();
  EXPECT_EQ(tree->node(a1).name, "a");
  EXPECT_EQ(tree->node(a2).name, "a~2");
  EXPECT_EQ(tree->node(a3).name, "a~2~2");
  EXPECT_EQ(tree->node(a4).name, "a~3");
  EXPECT_EQ(tree->node(a3).original, "a~2");
  for (auto i : {a1, a2, a3, a4}) EXPECT_EQ(tree->lookup(Tree::kRoot, tree->node(i).name), i);
}

TEST(TreeBuilder, ManyDuplicatesOfALongNameAllFitAndStayDistinct) {
  TreeBuilder b(attributes());
  const std::string long_name(255, 'n');
  std::vector<Tree::Index> added;
  for (int i = 0; i < 1000; ++i) added.push_back(b.add_file(Tree::kRoot, long_name, text("x")));
  auto tree = std::move(b).finish();
  EXPECT_EQ(tree->node(added[0]).name, long_name);
  EXPECT_EQ(tree->node(added[999]).name, std::string(250, 'n') + "~1000");
  std::set<std::string> names;
  for (auto i : added) {
    EXPECT_LE(tree->node(i).name.size(), 255u);
    names.insert(tree->node(i).name);
    EXPECT_EQ(tree->lookup(Tree::kRoot, tree->node(i).name), i);
  }
  EXPECT_EQ(names.size(), 1000u);
}

TEST(TreeBuilder, ListingKeepsInsertionOrderAndLookupFindsEveryChild) {
  TreeBuilder b(attributes());
  const char* names[] = {"zeta", "alpha", "mid", "Beta", "a/b"};
  for (const char* n : names) b.add_file(Tree::kRoot, n, text(n));
  auto tree = std::move(b).finish();
  const Node& root = tree->node(Tree::kRoot);
  ASSERT_EQ(root.children.size(), 5u);
  EXPECT_EQ(tree->node(root.children[0]).name, "zeta");
  EXPECT_EQ(tree->node(root.children[4]).name, "a%2Fb");
  for (auto c : root.children) EXPECT_EQ(tree->lookup(Tree::kRoot, tree->node(c).name), c);
  EXPECT_FALSE(tree->lookup(Tree::kRoot, "a/b").has_value());
  EXPECT_FALSE(tree->lookup(Tree::kRoot, "nope").has_value());
  EXPECT_FALSE(tree->find("zeta/x").has_value());
}

TEST(TreeBuilder, AttributesFollowTheContract) {
  TreeBuilder b(attributes());
  const auto d = b.add_directory(Tree::kRoot, "d");
  b.add_directory(d, "sub1");
  b.add_directory(d, "sub2");
  const auto f = b.add_file(d, "f", text(std::string(513, 'x')));
  const auto e = b.add_file(d, "e", text(""));
  auto tree = std::move(b).finish();

  const struct stat ds = tree->stat_of(d);
  EXPECT_EQ(ds.st_mode, S_IFDIR | 0555u);
  EXPECT_EQ(ds.st_nlink, 4u);  // 2 + two subdirectories
  EXPECT_EQ(ds.st_ino, tree->inode_of(d));
  EXPECT_EQ(tree->stat_of(Tree::kRoot).st_nlink, 3u);

  const struct stat fs = tree->stat_of(f);
  EXPECT_EQ(fs.st_mode, S_IFREG | 0444u);
  EXPECT_EQ(fs.st_nlink, 1u);
  EXPECT_EQ(fs.st_size, 513);
  EXPECT_EQ(fs.st_blocks, 2);  // ceil(513 / 512)
  EXPECT_EQ(fs.st_uid, 1234u);
  EXPECT_EQ(fs.st_gid, 5678u);
  EXPECT_EQ(fs.st_mtim.tv_sec, 1700000000);
  EXPECT_EQ(fs.st_mtim.tv_nsec, 5);
  EXPECT_EQ(tree->stat_of(e).st_blocks, 0);
}

TEST(TreeBuilder, RefusesFilesUnderFiles) {
  TreeBuilder b(attributes());
  const auto f = b.add_file(Tree::kRoot, "f", text("x"));
  EXPECT_THROW(b.add_file(f, "g", text("y")), std::invalid_argument);
  EXPECT_THROW(b.add_file(Tree::kRoot, "g", nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace gguffs
