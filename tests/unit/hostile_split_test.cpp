// A split model whose shards claim general.alignment 2^31 (a valid power of two): two 200-byte
// files once made the daemon allocate 2 GiB for the merged model.gguf's header padding. The
// padding must cost no memory and still read as zeros.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <system_error>

#include "fs/tree/model_tree.hpp"
#include "gguf/merged_layout.hpp"
#include "gguf/split.hpp"
#include "gguf/writer.hpp"
#include "tests/support/test_support.hpp"

namespace {

using gguf::OwnedValue;

constexpr uint64_t kHugeAlignment = uint64_t{1} << 31;

std::string shard(uint16_t no) {
  gguf::Writer w;  // laid out at 32; only the key claims 2^31
  w.add("general.alignment", OwnedValue::u32(static_cast<uint32_t>(kHugeAlignment)));
  w.add("split.no", OwnedValue::u16(no));
  w.add("split.count", OwnedValue::u16(2));
  w.add("split.tensors.count", OwnedValue::i32(2));
  w.add_tensor("t" + std::to_string(no), {4}, 0, std::string(16, '\1'));
  return w.to_bytes();
}

TEST(HostileSplit, HugeAlignmentPaddingIsNotHeldInMemory) {
  test_support::TempDir dir;
  test_support::write_file(dir / "m-00001-of-00002.gguf", shard(0));
  test_support::write_file(dir / "m-00002-of-00002.gguf", shard(1));
  const gguf::ModelSet set = gguf::open_model_set((dir / "m-00001-of-00002.gguf").string());
  ASSERT_EQ(set.shards.size(), 2u);
  ASSERT_TRUE(set.merged);
  EXPECT_EQ(set.merged->alignment, kHugeAlignment);
  EXPECT_EQ(set.merged->data_offset, kHugeAlignment);
  EXPECT_LT(set.merged->header.size(), 64u * 1024) << "padding held in memory";

  // model.gguf still has the padding, as zeros, right up to the data section.
  const auto tree = gguffs::build_model_tree(set, gguffs::Owner{});
  const auto file = tree->find("model.gguf");
  ASSERT_TRUE(file);
  const auto& content = *tree->node(*file).content;
  EXPECT_GE(content.size(), kHugeAlignment);
  gguffs::ReadBuffer head(8);
  content.read(0, 4, head);
  EXPECT_EQ(head.to_string(), "GGUF");
  gguffs::ReadBuffer pad(64);
  content.read(kHugeAlignment - 64, 64, pad);
  EXPECT_EQ(pad.to_string(), std::string(64, '\0'));
  // The shards' own data sections start at 2^31 too, past their ends: the tensors are missing.
  gguffs::ReadBuffer data(16);
  EXPECT_THROW(content.read(kHugeAlignment, 16, data), std::system_error);
}

}  // namespace
