// Each hostile file (tests/support/hostile_models.hpp) is either refused with the right kind of
// error and a message that says what is wrong, or loads with a warning that does, and then
// every file of its tree reads without a crash: bytes the file lacks give EIO, nothing else.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <system_error>

#include "fs/tree/model_tree.hpp"
#include "gguf/render/render.hpp"
#include "tests/support/hostile_models.hpp"
#include "tests/support/model_builders.hpp"

namespace {

using test_support::HostileCase;

// Reads [off, off + len) and checks the count; returns false on EIO.
bool read_range(const gguffs::FileContent& content, uint64_t off, size_t len) {
  gguffs::ReadBuffer out(len);
  try {
    content.read(off, len, out);
    const uint64_t size = content.size();
    const uint64_t expected = off >= size ? 0 : std::min<uint64_t>(len, size - off);
    EXPECT_EQ(out.to_string().size(), expected);
    return true;
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EIO) << e.what();
    return false;
  }
}

TEST(HostileFiles, EachIsRefusedOrLoadsWithAWarning) {
  for (const HostileCase& c : test_support::hostile_cases()) {
    SCOPED_TRACE(c.name + ": " + c.description);
    const auto error = test_support::parse_error(c.bytes, c.name + ".gguf");
    if (c.refused) {
      ASSERT_TRUE(error.has_value());
      EXPECT_EQ(error->kind(), *c.refused) << error->what();
      EXPECT_NE(std::string(error->what()).find(c.message), std::string::npos) << error->what();
      continue;
    }
    ASSERT_FALSE(error.has_value()) << error->what();
    const auto model = test_support::parse_bytes(c.bytes, c.name + ".gguf");
    const std::string warnings = gguf::render_warnings(*model);
    EXPECT_NE(warnings.find(c.message), std::string::npos) << warnings;
  }
}

TEST(HostileFiles, EveryFileOfALoadedOneReadsOrFailsWithEio) {
  const auto start = std::chrono::steady_clock::now();
  size_t files = 0, eio = 0;
  for (const HostileCase& c : test_support::hostile_cases()) {
    if (c.refused) continue;
    SCOPED_TRACE(c.name);
    const auto model = test_support::parse_bytes(c.bytes, c.name + ".gguf");
    const auto tree = gguffs::build_model_tree(model, gguffs::Owner{});
    for (gguffs::Tree::Index i = 0; i < tree->size(); ++i) {
      const gguffs::Node& n = tree->node(i);
      if (n.is_dir()) continue;
      EXPECT_EQ(tree->find(tree->path_of(i)), i) << tree->path_of(i);
      const uint64_t size = n.content->size();
      ++files;
      // The start, the last byte, past the end: as the kernel would ask.
      if (!read_range(*n.content, 0, 128 * 1024)) ++eio;
      if (size > 0) read_range(*n.content, size - 1, 4096);
      EXPECT_TRUE(read_range(*n.content, size, 4096));
    }
  }
  EXPECT_GT(files, 50u);
  EXPECT_GT(eio, 3u);  // the tensors the files lack
  // Terabyte tensors are never read or decoded in full.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
