// data.f32 contents without mounting: every alltypes tensor read whole, in odd-sized chunks and
// at random offsets equals ggml's own float32 output (ref/<index>.f32).
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include "fs/tree/content_decoded.hpp"
#include "gguf/parser.hpp"
#include "gguf/types.hpp"
#include "gguf/writer.hpp"
#include "tests/support/test_support.hpp"

namespace gguffs {
namespace {

std::string read(const FileContent& c, uint64_t off, size_t len) {
  ReadBuffer out(len);
  c.read(off, len, out);
  return out.to_string();
}

// The content read in consecutive pieces of chunk bytes.
std::string read_in_chunks(const FileContent& c, size_t chunk) {
  std::string all;
  for (uint64_t off = 0;; off += chunk) {
    const std::string piece = read(c, off, chunk);
    all += piece;
    if (piece.size() < chunk) break;
  }
  return all;
}

class AlltypesDecoded : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = gguf::parse_file(test_support::data_file("alltypes/alltypes.gguf").string());
  }
  gguf::ModelPtr model_;
};

TEST_F(AlltypesDecoded, EveryTensorWholeChunkedAndAtRandomOffsets) {
  const auto manifest = test_support::alltypes_manifest();
  ASSERT_EQ(model_->tensors.size(), manifest.size());
  std::mt19937_64 rng(4);
  for (const auto& row : manifest) {
    SCOPED_TRACE(row.name);
    const gguf::TensorInfo& t = model_->tensors.at(static_cast<size_t>(row.index));
    ASSERT_EQ(t.name, row.name);
    const std::string want =
        test_support::read_file(test_support::data_file("alltypes/" + row.ref_file));
    const DecodedFloats c(model_->source, t, false);
    ASSERT_EQ(c.size(), row.elements * 4);
    ASSERT_EQ(want.size(), c.size());

    EXPECT_TRUE(read(c, 0, want.size()) == want);
    EXPECT_TRUE(read(c, 0, want.size() + 4096) == want) << "clamped at the end";
    EXPECT_TRUE(read_in_chunks(c, 1000) == want);
    EXPECT_TRUE(read_in_chunks(c, 7) == want);
    for (int k = 0; k < 50; ++k) {
      const uint64_t off = rng() % want.size();
      const size_t len = 1 + rng() % 5000;
      EXPECT_TRUE(read(c, off, len) == want.substr(off, len)) << off << " +" << len;
    }
    EXPECT_EQ(read(c, want.size(), 100).size(), 0u) << "past the end";
    EXPECT_EQ(read(c, want.size() + 12345, 100).size(), 0u) << "past the end";
  }
}

TEST_F(AlltypesDecoded, AlignedWholeBlocksDecodeStraightIntoTheReply) {
  // blk.0.ffn_gate.weight: Q4_K, 704 rows of one 256-value block (1 KiB of float32 each).
  const gguf::TensorInfo* t = nullptr;
  for (const auto& x : model_->tensors)
    if (x.name == "blk.0.ffn_gate.weight") t = &x;
  ASSERT_NE(t, nullptr);
  const DecodedFloats c(model_->source, *t, false);
  ReadBuffer out(128 * 1024);
  c.read(4096, 128 * 1024, out);
  ASSERT_EQ(out.pieces().size(), 1u);
  EXPECT_EQ(out.pieces()[0].size, 128u * 1024);
  const std::string want = test_support::read_file(test_support::data_file("alltypes/ref/40.f32"));
  EXPECT_TRUE(out.to_string() == want.substr(4096, 128 * 1024));
}

TEST(PartialDecoded, MissingBlocksAreAnIoErrorPresentOnesRead) {
  // A Q8_0 tensor of 4 blocks (34 bytes each, 32 values) with only 2.5 blocks in the file.
  gguf::Writer w;
  std::string blocks;
  for (int b = 0; b < 4; ++b) {
    blocks += std::string("\x00\x3c", 2);  // d = 1.0 in fp16
    for (int i = 0; i < 32; ++i) blocks.push_back(static_cast<char>(b * 32 + i - 64));
  }
  w.add_tensor("q", {128}, gguf::type_id::Q8_0, blocks);
  const std::string whole = w.to_bytes();
  const std::string cut = whole.substr(0, w.data_offset() + 85);
  const auto model = gguf::parse(gguf::memory_source(cut, "cut"));
  const gguf::TensorInfo& t = model->tensors.at(0);
  ASSERT_EQ(t.bytes, 136u);
  ASSERT_EQ(t.bytes_present, 85u);
  const DecodedFloats c(model->source, t, false);
  EXPECT_EQ(c.size(), 512u);
  const std::string first = read(c, 0, 256);  // blocks 0 and 1: -64 .. -1
  ASSERT_EQ(first.size(), 256u);
  for (int i = 0; i < 64; ++i) {
    float v;
    std::memcpy(&v, first.data() + 4 * i, 4);
    EXPECT_EQ(v, static_cast<float>(i - 64));
  }
  for (const auto& [off, len] : {std::pair<uint64_t, size_t>{0, 512}, {256, 4}, {500, 100}}) {
    try {
      read(c, off, len);
      ADD_FAILURE() << "read at " << off << " succeeded";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code().value(), EIO);
    }
  }
}

// Big-endian plain types: the stored numbers swapped, then converted like ggml converts them.
TEST(BigEndianDecoded, PlainTypesAreSwapped) {
  gguf::Writer::Options options;
  options.big_endian = true;
  gguf::Writer w(options);
  // Big-endian bytes written by hand: 1.5f, -2.0f; fp16 1.0, -0.5; bf16 3.0 (0x4040);
  // i16 -300; i32 70000; i64 -5; f64 0.25; i8 -7.
  w.add_tensor("f32", {2}, gguf::type_id::F32, std::string("\x3f\xc0\x00\x00\xc0\x00\x00\x00", 8));
  w.add_tensor("f16", {2}, gguf::type_id::F16, std::string("\x3c\x00\xb8\x00", 4));
  w.add_tensor("bf16", {1}, gguf::type_id::BF16, std::string("\x40\x40", 2));
  w.add_tensor("i16", {1}, gguf::type_id::I16, std::string("\xfe\xd4", 2));
  w.add_tensor("i32", {1}, gguf::type_id::I32, std::string("\x00\x01\x11\x70", 4));
  w.add_tensor("i64", {1}, gguf::type_id::I64, std::string("\xff\xff\xff\xff\xff\xff\xff\xfb", 8));
  w.add_tensor("f64", {1}, gguf::type_id::F64, std::string("\x3f\xd0\x00\x00\x00\x00\x00\x00", 8));
  w.add_tensor("i8", {1}, gguf::type_id::I8, std::string("\xf9", 1));
  const auto model = gguf::parse(gguf::memory_source(w.to_bytes(), "be"));
  ASSERT_TRUE(model->big_endian);
  const std::vector<std::vector<float>> want = {{1.5f, -2.0f}, {1.0f, -0.5f}, {3.0f},  {-300.0f},
                                                {70000.0f},    {-5.0f},       {0.25f}, {-7.0f}};
  ASSERT_EQ(model->tensors.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(std::string(model->tensors[i].name));
    const DecodedFloats c(model->source, model->tensors[i], true);
    const std::string bytes = read(c, 0, 64);
    ASSERT_EQ(bytes.size(), want[i].size() * 4);
    EXPECT_EQ(std::memcmp(bytes.data(), want[i].data(), bytes.size()), 0);
  }
}

TEST(DecodedFloatsRefuses, TypesWithoutADecoder) {
  gguf::TensorInfo t;
  t.type_id = gguf::type_id::Q8_1;
  t.elements = 32;
  t.bytes = t.bytes_present = 36;
  EXPECT_THROW(DecodedFloats(gguf::memory_source(std::string(36, '\0')), t, false),
               std::invalid_argument);
}

}  // namespace
}  // namespace gguffs
