// The editor of a --edit mount without mounting (fs/edit/editor.hpp): each edit swaps in a new
// tree; paths whose content did not change keep their inode, changed files get new ones; the
// old tree a reader holds is untouched; refused edits change nothing.
#include <gtest/gtest.h>

#include <string>

#include "fs/edit/editor.hpp"
#include "fs/tree/model_tree.hpp"
#include "fs/tree/read_buffer.hpp"
#include "gguf/parser.hpp"
#include "tests/support/test_support.hpp"

namespace {

using gguffs::EditError;
using gguffs::Editor;
using gguffs::Tree;

std::string read_all(const Tree& tree, const std::string& path) {
  const auto i = tree.find(path);
  if (!i) return "<missing>";
  const auto& content = *tree.node(*i).content;
  std::string out;
  gguffs::ReadBuffer buf(static_cast<size_t>(content.size()));
  content.read(0, static_cast<size_t>(content.size()), buf);
  for (const auto& piece : buf.pieces()) {
    if (piece.is_file()) {
      std::string part(piece.size, '\0');
      EXPECT_EQ(pread(piece.fd, part.data(), piece.size, static_cast<off_t>(piece.file_offset)),
                static_cast<ssize_t>(piece.size));
      out += part;
    } else {
      out.append(reinterpret_cast<const char*>(piece.memory), piece.size);
    }
  }
  return out;
}

uint64_t inode(const Tree& tree, const std::string& path) {
  return tree.inode_of(*tree.find(path));
}

class EditorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    set_ = gguf::open_model_set(test_support::data_file("alltypes/alltypes.gguf").string());
    editor_ = std::make_unique<Editor>(set_, gguffs::build_model_tree(set_, {}));
  }
  gguf::ModelSet set_;
  std::unique_ptr<Editor> editor_;
};

TEST_F(EditorTest, AnEditSwapsInANewTreeAndKeepsUnchangedInodes) {
  const auto before = editor_->tree();
  const std::string original_model = read_all(*before, "model.gguf");
  const auto inv = editor_->write("general.name", "edited");
  const auto after = editor_->tree();
  ASSERT_NE(before, after);
  EXPECT_EQ(read_all(*after, "metadata/general.name"), "edited");
  EXPECT_EQ(read_all(*before, "metadata/general.name"), "oracle-all-types") << "old tree intact";
  EXPECT_EQ(read_all(*before, "model.gguf"), original_model);
  for (const char* same : {"", "metadata", "tensors", "metadata/general.architecture",
                           "tensors/types.f32.weight/data", "tensors.tsv"})
    EXPECT_EQ(inode(*before, same), inode(*after, same)) << same;
  for (const char* changed :
       {"metadata/general.name", "model.gguf", "metadata.json", "summary.txt"})
    EXPECT_NE(inode(*before, changed), inode(*after, changed)) << changed;
  // The kernel is told to drop exactly the changed names (in the root and in metadata/).
  std::vector<std::string> names;
  for (const auto& n : inv.names) names.push_back(n.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"general.name", "metadata.json", "model.gguf",
                                             "summary.txt"}));
  const auto edited = gguf::parse(gguf::memory_source(read_all(*after, "model.gguf")));
  EXPECT_TRUE(edited->warnings.empty());
  EXPECT_EQ(edited->find("general.name")->value.str, "edited");
  // The retired model.gguf stays reachable by its inode for a reader that looked it up.
  const auto retired = editor_->retired(inode(*before, "model.gguf"));
  ASSERT_TRUE(retired.has_value());
  EXPECT_EQ(static_cast<size_t>(retired->stat().st_size), original_model.size());
}

TEST_F(EditorTest, RefusedEditsChangeNothing) {
  const auto before = editor_->tree();
  try {
    editor_->write("llama.context_length", "-1");
    ADD_FAILURE() << "accepted";
  } catch (const EditError& e) {
    EXPECT_EQ(e.code().value(), EINVAL);
    EXPECT_NE(e.reason().find("out of range for UINT32"), std::string::npos) << e.reason();
  }
  EXPECT_THROW(editor_->write("no.such.key", "1"), EditError);
  EXPECT_THROW(editor_->create("general.name"), EditError);              // exists
  EXPECT_THROW(editor_->set_type("general.name", "UINT32"), EditError);  // keeps its type
  EXPECT_THROW(editor_->create("split.count"), EditError);
  EXPECT_EQ(editor_->tree(), before);
}

TEST_F(EditorTest, CreateTypeRenameAndRemove) {
  editor_->create("my.count");
  editor_->set_type("my.count", "UINT16");
  EXPECT_EQ(read_all(*editor_->tree(), "metadata/my.count"), "0\n");
  editor_->write("my.count", "7");
  EXPECT_THROW(editor_->set_type("my.count", "STRING"), EditError);  // written: type fixed
  // A temporary STRING file renamed over a typed key is read as that key's type.
  editor_->create("tmp123");
  editor_->write("tmp123", "9\n");
  editor_->rename("tmp123", "my.count");
  const auto tree = editor_->tree();
  EXPECT_EQ(read_all(*tree, "metadata/my.count"), "9\n");
  EXPECT_FALSE(tree->find("metadata/tmp123").has_value());
  editor_->remove("my.count");
  const auto model = gguf::parse(gguf::memory_source(read_all(*editor_->tree(), "model.gguf")));
  EXPECT_EQ(model->find("my.count"), nullptr);
  EXPECT_EQ(model->metadata.size(), set_.first()->metadata.size());
}

}  // namespace
