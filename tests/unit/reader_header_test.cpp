// Header-level behaviour: versions, byte order, alignment and where the data section starts.
#include <gtest/gtest.h>

#include "gguf/parser.hpp"
#include "gguf/writer.hpp"
#include "tests/support/model_builders.hpp"

namespace {

using gguf::FormatError;
using gguf::OwnedValue;
using gguf::Writer;
using test_support::parse_bytes;
using test_support::parse_error;

Writer small(Writer::Options options) {
  Writer w(options);
  w.add("general.architecture", OwnedValue::string("llama"));
  w.add_tensor("t", {8}, gguf::type_id::I8, "abcdefgh");
  return w;
}

class RefusedVersion : public ::testing::TestWithParam<std::tuple<uint32_t, bool>> {};

TEST_P(RefusedVersion, IsUnsupportedVersionNamingTheNumber) {
  auto [version, big_endian] = GetParam();
  auto e = parse_error(small({.version = version, .big_endian = big_endian}).to_bytes(), "v.gguf");
  ASSERT_TRUE(e) << "version " << version << " was accepted";
  EXPECT_EQ(e->kind(), FormatError::Kind::unsupported_version);
  EXPECT_NE(e->message().find(std::to_string(version)), std::string::npos) << e->what();
  EXPECT_EQ(e->file(), "v.gguf");
  EXPECT_EQ(e->offset(), 4u);  // the version field
}

INSTANTIATE_TEST_SUITE_P(Versions, RefusedVersion,
                         ::testing::Values(std::tuple{1u, false}, std::tuple{0u, false},
                                           std::tuple{4u, false}, std::tuple{1u, true},
                                           std::tuple{4u, true}));

TEST(ReaderHeader, VersionsTwoAndThreeInBothByteOrdersGiveTheSameCounts) {
  for (uint32_t version : {2u, 3u}) {
    for (bool be : {false, true}) {
      auto m = parse_bytes(small({.version = version, .big_endian = be}).to_bytes());
      EXPECT_EQ(m->version, version);
      EXPECT_EQ(m->big_endian, be);
      EXPECT_EQ(m->n_kv, 1u);
      EXPECT_EQ(m->n_tensors, 1u);
      ASSERT_EQ(m->tensors.size(), 1u);
      // header 24 + kv (8+20)+4+(8+5) = 45 -> 69; info (8+1)+4+8+4+8 = 33 -> 102; data at 128.
      EXPECT_EQ(m->data_offset, 128u);
      EXPECT_EQ(m->tensors[0].file_offset, 128u);
      EXPECT_EQ(m->tensors[0].info_offset, 69u);
      EXPECT_EQ(m->file_size, 160u);
      EXPECT_TRUE(m->warnings.empty());
    }
  }
}

// Seed Example 8's tensors (256, 204 and 1000 bytes) at several alignments.
struct AlignmentCase {
  uint32_t alignment;
  uint64_t data_offset;
  std::array<uint64_t, 3> offsets;
};

class Alignment : public ::testing::TestWithParam<AlignmentCase> {};

TEST_P(Alignment, DataOffsetAndTensorOffsetsFollowIt) {
  const AlignmentCase& c = GetParam();
  Writer w;
  w.set_alignment(c.alignment);  // general.alignment, 33 bytes: 24 -> 57
  std::array<std::string, 3> data = {std::string(256, 'a'), std::string(204, 'b'),
                                     std::string(1000, 'c')};
  // Each info: (8+1) + 4 + 8 + 4 + 8 = 33 bytes: the infos end at 57 + 99 = 156.
  w.add_tensor("a", {256}, gguf::type_id::I8, data[0]);
  w.add_tensor("b", {204}, gguf::type_id::I8, data[1]);
  w.add_tensor("c", {1000}, gguf::type_id::I8, data[2]);
  std::string bytes = w.to_bytes();
  auto m = parse_bytes(bytes);
  EXPECT_EQ(m->alignment, c.alignment);
  EXPECT_EQ(m->data_offset, c.data_offset);
  ASSERT_EQ(m->tensors.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const auto& t = m->tensors[i];
    EXPECT_EQ(t.offset, c.offsets[i]);
    EXPECT_EQ(t.file_offset, c.data_offset + c.offsets[i]);
    EXPECT_EQ(t.bytes, data[i].size());
    EXPECT_TRUE(t.data_complete());
    EXPECT_EQ(bytes.substr(t.file_offset, t.bytes), data[i]);
  }
  EXPECT_TRUE(m->warnings.empty()) << m->warnings.front();
}

INSTANTIATE_TEST_SUITE_P(Alignments, Alignment,
                         ::testing::Values(AlignmentCase{1, 156, {0, 256, 460}},
                                           AlignmentCase{32, 160, {0, 256, 480}},
                                           AlignmentCase{64, 192, {0, 256, 512}},
                                           AlignmentCase{4096, 4096, {0, 4096, 8192}}),
                         [](const auto& info) {
                           return "a" + std::to_string(info.param.alignment);
                         });

TEST(ReaderHeader, WithoutAnAlignmentKeyTheAlignmentIs32) {
  auto m = parse_bytes(small({}).to_bytes());
  EXPECT_EQ(m->alignment, 32u);
}

TEST(ReaderHeader, ZeroTensorsAndZeroKeysIsAValidFile) {
  Writer w;
  auto m = parse_bytes(w.to_bytes());
  EXPECT_EQ(m->n_kv, 0u);
  EXPECT_EQ(m->n_tensors, 0u);
  EXPECT_TRUE(m->metadata.empty());
  EXPECT_TRUE(m->tensors.empty());
  EXPECT_EQ(m->missing_bytes(), 0u);
}

TEST(ReaderHeader, MemorySourceNameIsTheModelName) {
  auto m = parse_bytes(small({}).to_bytes(), "named.gguf");
  EXPECT_EQ(m->name(), "named.gguf");
}

}  // namespace
