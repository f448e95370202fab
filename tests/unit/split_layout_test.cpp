// The merged file's layout for a small split model, against offsets computed by hand from the
// GGUF encoding (reference §2.1), and parsed back with our reader (§2.2's rules: packed offsets,
// alignment, counts; any deviation would be a warning).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gguf/errors.hpp"
#include "gguf/merged_layout.hpp"
#include "gguf/parser.hpp"
#include "tests/support/model_builders.hpp"
#include "tests/support/split_builders.hpp"

namespace {

using gguf::MergedSegment;
using test_support::f32_bytes;
using test_support::parse_bytes;
using test_support::split_shard_writer;

std::vector<gguf::ModelPtr> three_shards(gguf::Writer::Options options = {}) {
  std::vector<gguf::ModelPtr> shards;
  for (uint16_t no = 0; no < 3; ++no) {
    gguf::Writer w(options);
    gguf::Writer plain = split_shard_writer(no, 3);
    // Rebuild with the options (byte order), same content as split_shard_writer.
    if (no == 0) {
      w.add("general.architecture", gguf::OwnedValue::string("llama"));
      w.add("general.name", gguf::OwnedValue::string("split-test"));
      w.add("llama.block_count", gguf::OwnedValue::u32(1));
    }
    w.add("split.no", gguf::OwnedValue::u16(no));
    w.add("split.count", gguf::OwnedValue::u16(3));
    w.add("split.tensors.count", gguf::OwnedValue::i32(6));
    const float base = no * 100.0f;
    w.add_tensor("blk." + std::to_string(no) + ".a", {5}, gguf::type_id::F32, f32_bytes(base, 5));
    w.add_tensor("blk." + std::to_string(no) + ".b", {3}, gguf::type_id::F32,
                 f32_bytes(base + 10.0f, 3));
    if (!options.big_endian) {
      EXPECT_EQ(w.to_bytes(), plain.to_bytes());
    }
    shards.push_back(parse_bytes(w.to_bytes(), "s-0000" + std::to_string(no + 1) + "-of-00003"));
  }
  return shards;
}

std::string read_all(const gguf::ByteSource& src) {
  std::string out(src.size(), '\0');
  EXPECT_EQ(src.read_at(0, out.data(), out.size()), out.size());
  return out;
}

// Header: 24 bytes (magic, version, counts); general.architecture = 8+20+4+8+5 = 45,
// general.name = 8+12+4+8+10 = 42, llama.block_count = 8+17+4+4 = 33; six tensor infos of
// 8+7+4+8+4+8 = 39 bytes. 24 + 120 + 234 = 378, aligned to 32: 384. Tensors of 20 and 12 bytes
// each take 32 in the data section: offsets 0, 32, ..., 160, 192 bytes of data.
TEST(MergedLayout, OffsetsAlignmentAndPaddingByHand) {
  const auto shards = three_shards();
  const gguf::MergedLayout layout = gguf::merge_layout(shards);
  EXPECT_EQ(layout.alignment, 32u);
  EXPECT_EQ(layout.n_kv, 3u);
  EXPECT_EQ(layout.n_tensors, 6u);
  EXPECT_EQ(layout.data_offset, 384u);
  EXPECT_EQ(layout.header.size(), 384u);
  EXPECT_EQ(layout.size, 576u);
  EXPECT_EQ(layout.tensor_offsets, (std::vector<uint64_t>{0, 32, 64, 96, 128, 160}));

  // Shard 0: 24 + (45+42+33 + 22+25+35) + 78 = 304, data at 320. Shards 1 and 2:
  // 24 + 82 + 78 = 184, data at 192.
  const uint64_t shard_data[3] = {320, 192, 192};
  ASSERT_EQ(layout.segments.size(), 13u);
  EXPECT_EQ(layout.segments[0].kind, MergedSegment::Kind::header);
  EXPECT_EQ(layout.segments[0].size, 384u);
  for (uint32_t k = 0; k < 6; ++k) {
    const MergedSegment& data = layout.segments[1 + 2 * k];
    const MergedSegment& pad = layout.segments[2 + 2 * k];
    const uint64_t bytes = k % 2 == 0 ? 20 : 12;
    EXPECT_EQ(data.kind, MergedSegment::Kind::shard) << k;
    EXPECT_EQ(data.start, 384 + 32 * k) << k;
    EXPECT_EQ(data.size, bytes) << k;
    EXPECT_EQ(data.shard, k / 2) << k;
    EXPECT_EQ(data.shard_offset, shard_data[k / 2] + (k % 2) * 32) << k;
    EXPECT_EQ(data.present, bytes) << k;
    EXPECT_EQ(pad.kind, MergedSegment::Kind::zeros) << k;
    EXPECT_EQ(pad.start, 384 + 32 * k + bytes) << k;
    EXPECT_EQ(pad.size, 32 - bytes) << k;
  }
}

TEST(MergedLayout, MetadataIsCopiedByteForByteWithoutSplitKeys) {
  const auto shards = three_shards();
  const gguf::MergedLayout layout = gguf::merge_layout(shards);
  const std::string shard0 = split_shard_writer(0, 3).to_bytes();
  // The three kept entries are the first 120 bytes after the 24-byte header in both files.
  EXPECT_EQ(layout.header.substr(0, 8), shard0.substr(0, 8));  // magic, version 3
  EXPECT_EQ(layout.header.substr(24, 120), shard0.substr(24, 120));
  EXPECT_EQ(layout.header.find("split."), std::string::npos);
  EXPECT_TRUE(gguf::is_split_key("split.no"));
  EXPECT_TRUE(gguf::is_split_key("split.tensors.count"));
  EXPECT_FALSE(gguf::is_split_key("general.split"));
}

TEST(MergedLayout, MergedFileParsesCleanlyWithEveryTensorsBytes) {
  const auto shards = three_shards();
  auto layout = std::make_shared<const gguf::MergedLayout>(gguf::merge_layout(shards));
  const auto source = gguf::merged_source(shards, layout, "model.gguf");
  const gguf::ModelPtr merged = gguf::parse(source);
  EXPECT_TRUE(merged->warnings.empty()) << merged->warnings.front();
  EXPECT_EQ(merged->version, 3u);
  EXPECT_EQ(merged->n_kv, 3u);
  ASSERT_EQ(merged->metadata.size(), 3u);
  EXPECT_EQ(merged->metadata[0].key, "general.architecture");
  EXPECT_EQ(merged->metadata[0].value.str, "llama");
  EXPECT_EQ(merged->metadata[1].value.str, "split-test");
  EXPECT_EQ(merged->metadata[2].value.bits, 1u);
  EXPECT_EQ(merged->data_offset, 384u);
  EXPECT_EQ(merged->file_size, 576u);
  ASSERT_EQ(merged->tensors.size(), 6u);
  const std::string all = read_all(*source);
  for (uint32_t k = 0; k < 6; ++k) {
    const gguf::TensorInfo& t = merged->tensors[k];
    const uint32_t no = k / 2;
    const bool a = k % 2 == 0;
    EXPECT_EQ(t.name, "blk." + std::to_string(no) + (a ? ".a" : ".b"));
    EXPECT_EQ(t.offset, 32u * k);
    const std::string expected = a ? f32_bytes(no * 100.0f, 5) : f32_bytes(no * 100.0f + 10, 3);
    EXPECT_EQ(all.substr(t.file_offset, t.bytes), expected) << k;
    // The padding after it is zeros.
    EXPECT_EQ(all.substr(t.file_offset + t.bytes, 32 - t.bytes), std::string(32 - t.bytes, '\0'));
  }
  // Reads at odd offsets across segment boundaries give the same bytes.
  for (uint64_t off : {0ull, 383ull, 390ull, 403ull, 410ull, 570ull}) {
    std::string part(std::min<uint64_t>(50, 576 - off), '\0');
    ASSERT_EQ(source->read_at(off, part.data(), part.size()), part.size());
    EXPECT_EQ(part, all.substr(off, part.size())) << off;
  }
}

// general.alignment 64 in the first shard: kept, and used for the merged layout. One more entry
// of 8+17+4+4 = 33 bytes: 378 + 33 = 411, aligned to 64: 448; each tensor takes 64.
TEST(MergedLayout, FirstShardsAlignmentIsKept) {
  std::vector<gguf::ModelPtr> shards;
  for (uint16_t no = 0; no < 3; ++no) {
    gguf::Writer w = split_shard_writer(no, 3);
    if (no == 0) {
      gguf::Writer aligned;
      aligned.set_alignment(64);
      aligned.add("general.architecture", gguf::OwnedValue::string("llama"));
      aligned.add("general.name", gguf::OwnedValue::string("split-test"));
      aligned.add("llama.block_count", gguf::OwnedValue::u32(1));
      aligned.add("split.no", gguf::OwnedValue::u16(0));
      aligned.add("split.count", gguf::OwnedValue::u16(3));
      aligned.add("split.tensors.count", gguf::OwnedValue::i32(6));
      aligned.add_tensor("blk.0.a", {5}, gguf::type_id::F32, f32_bytes(0, 5));
      aligned.add_tensor("blk.0.b", {3}, gguf::type_id::F32, f32_bytes(10, 3));
      w = aligned;
    }
    shards.push_back(parse_bytes(w.to_bytes()));
  }
  auto layout = std::make_shared<const gguf::MergedLayout>(gguf::merge_layout(shards));
  EXPECT_EQ(layout->alignment, 64u);
  EXPECT_EQ(layout->n_kv, 4u);
  EXPECT_EQ(layout->data_offset, 448u);
  EXPECT_EQ(layout->tensor_offsets, (std::vector<uint64_t>{0, 64, 128, 192, 256, 320}));
  EXPECT_EQ(layout->size, 448u + 384u);
  const gguf::ModelPtr merged = gguf::parse(gguf::merged_source(shards, layout, "m"));
  EXPECT_TRUE(merged->warnings.empty());
  EXPECT_EQ(merged->alignment, 64u);
}

TEST(MergedLayout, BigEndianShardsMergeIntoABigEndianFile) {
  gguf::Writer::Options be;
  be.big_endian = true;
  const auto shards = three_shards(be);
  ASSERT_TRUE(shards[0]->big_endian);
  auto layout = std::make_shared<const gguf::MergedLayout>(gguf::merge_layout(shards));
  EXPECT_TRUE(layout->big_endian);
  EXPECT_EQ(layout->size, 576u);
  const gguf::ModelPtr merged = gguf::parse(gguf::merged_source(shards, layout, "m"));
  EXPECT_TRUE(merged->big_endian);
  EXPECT_TRUE(merged->warnings.empty());
  EXPECT_EQ(merged->metadata[2].value.bits, 1u);
  ASSERT_EQ(merged->tensors.size(), 6u);
  EXPECT_EQ(merged->tensors[5].offset, 160u);
  EXPECT_EQ(merged->tensors[5].ne[0], 3u);
}

TEST(MergedLayout, MixedByteOrdersAreRefused) {
  gguf::Writer::Options be;
  be.big_endian = true;
  auto shards = three_shards();
  shards[1] = three_shards(be)[1];
  try {
    gguf::merge_layout(shards);
    FAIL() << "mixed byte orders merged";
  } catch (const gguf::FormatError& e) {
    EXPECT_EQ(e.kind(), gguf::FormatError::Kind::split);
    EXPECT_NE(e.message().find("big-endian"), std::string::npos) << e.what();
  }
}

}  // namespace

namespace {

// gguf-split --no-tensor-first-split: the first shard holds only metadata. Its last entry's
// encoding ends where the (absent) tensor infos would start: 24 + 120 + 82 = 226 bytes.
TEST(MergedLayout, MetadataOnlyFirstShard) {
  gguf::Writer first;
  first.add("general.architecture", gguf::OwnedValue::string("llama"));
  first.add("general.name", gguf::OwnedValue::string("split-test"));
  first.add("llama.block_count", gguf::OwnedValue::u32(1));
  first.add("split.no", gguf::OwnedValue::u16(0));
  first.add("split.count", gguf::OwnedValue::u16(3));
  first.add("split.tensors.count", gguf::OwnedValue::i32(4));
  ASSERT_EQ(first.infos_end(), 226u);
  std::vector<gguf::ModelPtr> shards = {parse_bytes(first.to_bytes())};
  for (uint16_t no = 1; no < 3; ++no)
    shards.push_back(parse_bytes(split_shard_writer(no, 3, 4).to_bytes()));
  auto layout = std::make_shared<const gguf::MergedLayout>(gguf::merge_layout(shards));
  // 24 + 120 + 4 infos of 39 bytes = 300, aligned: 320; 4 tensors of 32 bytes each.
  EXPECT_EQ(layout->data_offset, 320u);
  EXPECT_EQ(layout->size, 320u + 128u);
  const gguf::ModelPtr merged = gguf::parse(gguf::merged_source(shards, layout, "m"));
  EXPECT_TRUE(merged->warnings.empty());
  ASSERT_EQ(merged->tensors.size(), 4u);
  EXPECT_EQ(merged->tensors[0].name, "blk.1.a");
  EXPECT_EQ(merged->metadata.size(), 3u);
}

}  // namespace
