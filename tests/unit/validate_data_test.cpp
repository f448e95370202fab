// `check --data`'s validator against a corpus written by gguf::Writer: one small model per case,
// each with a fixed verdict and message in llama.cpp's words (ggml_validate_row_data, reference
// §2.3). The byte offsets are computed from the writer's layout, not from the checker.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gguf/parser.hpp"
#include "gguf/split.hpp"
#include "gguf/types.hpp"
#include "gguf/validate/model_check.hpp"
#include "gguf/validate/validate.hpp"
#include "gguf/writer.hpp"
#include "tests/support/split_builders.hpp"
#include "tests/support/test_support.hpp"

namespace {

namespace ids = gguf::type_id;
using test_support::TempDir;

constexpr uint16_t kHalfOne = 0x3C00, kHalfInf = 0x7C00, kHalfNaN = 0x7E00;

void put16(std::string& b, size_t at, uint16_t v) {
  b[at] = static_cast<char>(v & 0xFF);
  b[at + 1] = static_cast<char>(v >> 8);
}
void put32(std::string& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put64(std::string& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
uint64_t double_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

struct Blocks {
  uint32_t type_id;
  size_t n_blocks;
  std::string bytes;
  uint32_t block_bytes() const { return gguf::tensor_type(type_id)->block_bytes; }
  // ne for n_blocks blocks as one row
  std::vector<uint64_t> ne() const { return {n_blocks * gguf::tensor_type(type_id)->block_size}; }
};

// n blocks of type, each with its fp16 fields at the given offsets set to 1.0 (valid), the rest
// of every byte 0x11 (arbitrary quants).
Blocks blocks(uint32_t type, size_t n, std::vector<size_t> half_fields) {
  Blocks b{type, n, {}};
  b.bytes.assign(n * b.block_bytes(), '\x11');
  for (size_t i = 0; i < n; ++i)
    for (size_t at : half_fields) put16(b.bytes, i * b.block_bytes() + at, kHalfOne);
  return b;
}

struct Result {
  bool refused;
  std::string report;
  uint64_t tensor_file_offset;  // from the writer's layout
};

// Writes a model holding "before" (a clean F32 tensor) then the case's tensor named "t".
Result check_case(const Blocks& b) {
  TempDir dir;
  gguf::Writer w;
  w.add("general.architecture", gguf::OwnedValue::string("llama"));
  std::string clean(4 * 8, '\0');
  for (int i = 0; i < 8; ++i) put32(clean, 4 * i, 0x3F800000u);  // 1.0f
  w.add_tensor("before", {8}, ids::F32, clean);
  w.add_tensor("t", b.ne(), b.type_id, b.bytes);
  const auto path = dir / "case.gguf";
  w.write_file(path.string());
  const gguf::ModelSet set = gguf::open_model_set(path.string());  // check points into it
  const gguf::ModelCheck check = gguf::check_model_data(set, 2);
  return {check.refused_count() != 0, gguf::render_model_check(check),
          w.data_offset() + w.tensor_offset(1)};
}

std::string refusal(const std::string& message, const std::string& type, uint64_t byte,
                    const std::string& extra = "") {
  return "tensor 't' has invalid data: " + message + " (" + type + ", byte " +
         std::to_string(byte) + " of case.gguf" + extra + ")\n" +
         "found tensors with invalid data: 1 of 2 tensors\n";
}

// A refused case: the expected message and the block it names.
void expect_refused(const Blocks& b, const std::string& message, uint64_t block,
                    const std::string& extra = "") {
  const Result r = check_case(b);
  EXPECT_TRUE(r.refused);
  EXPECT_EQ(r.report, refusal(message, gguf::ggml_type_name(b.type_id),
                              r.tensor_file_offset + block * b.block_bytes(), extra));
}

TEST(ValidateData, F32NaNAndInf) {
  Blocks nan = blocks(ids::F32, 16, {});
  for (size_t i = 0; i < 16; ++i) put32(nan.bytes, 4 * i, 0x40000000u);  // 2.0f
  put32(nan.bytes, 4 * 5, 0x7FC00000u);
  expect_refused(nan, "found nan value at block 5", 5);
  Blocks inf = nan;
  put32(inf.bytes, 4 * 5, 0x40000000u);
  put32(inf.bytes, 4 * 3, 0xFF800000u);   // -inf
  put32(inf.bytes, 4 * 12, 0x7F800001u);  // a NaN later: the first bad element wins
  expect_refused(inf, "found inf value at block 3", 3, ", 2 bad blocks");
}

TEST(ValidateData, F16NaNAndInf) {
  Blocks inf = blocks(ids::F16, 40, {0});
  put16(inf.bytes, 2 * 37, kHalfInf);
  expect_refused(inf, "found inf value at block 37", 37);
  Blocks nan = blocks(ids::F16, 40, {0});
  put16(nan.bytes, 2 * 1, 0xFC01);  // negative NaN with the smallest payload
  expect_refused(nan, "found nan value at block 1", 1);
}

TEST(ValidateData, BF16CountsNaNsThenInfinities) {
  Blocks b{ids::BF16, 16, std::string(32, '\0')};
  for (size_t i = 0; i < 16; ++i) put16(b.bytes, 2 * i, 0x3F80);  // 1.0
  put16(b.bytes, 2 * 4, 0x7F80);                                  // +inf
  put16(b.bytes, 2 * 9, 0x7FC0);                                  // NaN
  put16(b.bytes, 2 * 11, 0xFF81);                                 // -NaN
  expect_refused(b, "found 2 NaNs in row of 16 BF16 values", 9, ", 3 bad blocks");
  put16(b.bytes, 2 * 9, 0x3F80);
  put16(b.bytes, 2 * 11, 0xFF80);  // -inf
  expect_refused(b, "found 2 infinities in row of 16 BF16 values", 4, ", 2 bad blocks");
}

TEST(ValidateData, F64NaNAndValuesBeyondFloat) {
  Blocks b{ids::F64, 8, std::string(64, '\0')};
  for (size_t i = 0; i < 8; ++i) put64(b.bytes, 8 * i, double_bits(0.5));
  put64(b.bytes, 8 * 6, double_bits(std::nan("")));
  expect_refused(b, "found nan value at block 6", 6);
  // ggml checks each double as a float: 1e300 overflows to inf there, 3.4e38 does not.
  put64(b.bytes, 8 * 2, double_bits(1e300));
  put64(b.bytes, 8 * 1, double_bits(3.4e38));
  expect_refused(b, "found inf value at block 2", 2, ", 2 bad blocks");
}

TEST(ValidateData, LegacyQuantScales) {
  Blocks q4_0 = blocks(ids::Q4_0, 4, {0});
  put16(q4_0.bytes, 2 * 18, kHalfNaN);
  expect_refused(q4_0, "found nan value at block 2", 2);
  Blocks q8_0 = blocks(ids::Q8_0, 4, {0});
  put16(q8_0.bytes, 1 * 34, 0xFC00);
  expect_refused(q8_0, "found inf value at block 1", 1);
  Blocks q5_1 = blocks(ids::Q5_1, 3, {0, 2});
  put16(q5_1.bytes, 2 * 24 + 2, kHalfNaN);  // m, not d
  expect_refused(q5_1, "found nan value at block 2", 2);
  Blocks tq1 = blocks(ids::TQ1_0, 2, {52});
  put16(tq1.bytes, 54 + 52, kHalfInf);
  expect_refused(tq1, "found inf value at block 1", 1);
}

TEST(ValidateData, KQuantScales) {
  Blocks q4_k = blocks(ids::Q4_K, 3, {0, 2});
  put16(q4_k.bytes, 144 * 1 + 2, kHalfNaN);  // dmin
  expect_refused(q4_k, "found nan value at block 1", 1);
  put16(q4_k.bytes, 144 * 1 + 0, kHalfInf);  // and d: d is looked at first
  expect_refused(q4_k, "found inf value at block 1", 1);
  Blocks q6_k = blocks(ids::Q6_K, 3, {208});
  put16(q6_k.bytes, 210 * 2 + 208, kHalfNaN);
  expect_refused(q6_k, "found nan value at block 2", 2);
  Blocks q2_k = blocks(ids::Q2_K, 2, {80, 82});
  put16(q2_k.bytes, 84 + 82, kHalfInf);
  expect_refused(q2_k, "found inf value at block 1", 1);
  Blocks q3_k = blocks(ids::Q3_K, 2, {108});
  put16(q3_k.bytes, 108, kHalfNaN);
  expect_refused(q3_k, "found nan value at block 0", 0);
  Blocks q8_k = blocks(ids::Q8_K, 2, {});
  put32(q8_k.bytes, 0, 0x3F800000u);
  put32(q8_k.bytes, 292, 0x7FC00000u);  // Q8_K's d is a float
  expect_refused(q8_k, "found nan value at block 1", 1);
}

TEST(ValidateData, IQuantScales) {
  Blocks iq4_xs = blocks(ids::IQ4_XS, 3, {0});
  put16(iq4_xs.bytes, 136 * 2, kHalfNaN);
  expect_refused(iq4_xs, "found nan value at block 2", 2);
  Blocks iq2_xxs = blocks(ids::IQ2_XXS, 2, {0});
  put16(iq2_xxs.bytes, 66, kHalfInf);
  expect_refused(iq2_xxs, "found inf value at block 1", 1);
  // IQ1_M's fp16 scale is the top nibbles of its four u16 scales (bytes 48..55): 0x7C00 is
  // sc3 = 0x7xxx, sc2 = 0xCxxx, sc1 and sc0 with top nibble 0; 0x7C01 puts 1 in sc0's.
  Blocks iq1_m{ids::IQ1_M, 3, std::string(3 * 56, '\0')};
  put16(iq1_m.bytes, 56 + 48, 0x0FFF);
  put16(iq1_m.bytes, 56 + 50, 0x0FFF);
  put16(iq1_m.bytes, 56 + 52, 0xCFFF);
  put16(iq1_m.bytes, 56 + 54, 0x7FFF);
  expect_refused(iq1_m, "found inf value at block 1", 1);
  put16(iq1_m.bytes, 56 + 48, 0x1FFF);
  expect_refused(iq1_m, "found nan value at block 1", 1);
}

TEST(ValidateData, Mxfp4ExponentFF) {
  Blocks b = blocks(ids::MXFP4, 5, {});
  for (size_t i = 0; i < 5; ++i) b.bytes[17 * i] = static_cast<char>(0x7F);
  b.bytes[17 * 3] = static_cast<char>(0xFF);
  expect_refused(b, "found invalid e value 255 at block 3", 3);
  b.bytes[17 * 3] = static_cast<char>(0xFE);  // the largest valid exponent
  EXPECT_FALSE(check_case(b).refused);
}

TEST(ValidateData, Q8_1IsAnInvalidTypeForGgml) {
  const Result r = check_case(blocks(ids::Q8_1, 1, {0, 2}));
  EXPECT_TRUE(r.refused);
  EXPECT_EQ(r.report,
            "tensor 't' has invalid data: invalid type 9\n"
            "found tensors with invalid data: 1 of 2 tensors\n");
}

TEST(ValidateData, WarningsDoNotRefuse) {
  Blocks nvfp4 = blocks(ids::NVFP4, 3, {});
  for (size_t i = 0; i < 3; ++i) std::memset(nvfp4.bytes.data() + 36 * i, 0x38, 4);  // 1.0
  nvfp4.bytes[36 * 1 + 2] = static_cast<char>(0x7F);
  nvfp4.bytes[36 * 2 + 0] = static_cast<char>(0xFF);
  Result r = check_case(nvfp4);
  EXPECT_FALSE(r.refused);
  EXPECT_EQ(r.report,
            "warning: tensor 't': 2 NVFP4 scales are NaN in E4M3 (0x7F or 0xFF; "
            "llama.cpp does not check them), first at block 1 (byte " +
                std::to_string(r.tensor_file_offset + 36) +
                " of case.gguf)\n"
                "tensor data valid: 2 tensors, 140 bytes checked, 1 warnings\n");
  r = check_case(Blocks{ids::F32, 64, std::string(256, '\0')});
  EXPECT_FALSE(r.refused);
  EXPECT_EQ(r.report,
            "warning: tensor 't': all 256 bytes are zero\n"
            "tensor data valid: 2 tensors, 288 bytes checked, 1 warnings\n");
  // Integers are not checked: bit patterns that would be NaN as floats pass.
  r = check_case(Blocks{ids::I32, 4, std::string(16, '\xFF')});
  EXPECT_FALSE(r.refused);
  EXPECT_EQ(r.report, "tensor data valid: 2 tensors, 48 bytes checked\n");
}

TEST(ValidateData, SizeNotWholeBlocksIsRefused) {
  const std::string bytes(18 * 2 + 5, '\0');
  const gguf::DataVerdict v = gguf::validate_tensor_data(
      ids::Q4_0, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  EXPECT_FALSE(v.valid());
  EXPECT_EQ(v.message, "invalid size 41 for type q4_0 (type size = 18)");
}

TEST(ValidateData, ChunksMergeToTheFirstBadBlock) {
  // A tensor of several 4 MiB chunks scanned on 2 threads: the earliest bad block is named,
  // whichever chunk finishes first.
  const size_t n = 3 * (4u << 20) / 34 + 7;
  Blocks q8_0 = blocks(ids::Q8_0, n, {0});
  put16(q8_0.bytes, 34 * (n - 2), kHalfNaN);
  put16(q8_0.bytes, 34 * 200000, kHalfInf);
  expect_refused(q8_0, "found inf value at block 200000", 200000, ", 2 bad blocks");
}

TEST(ValidateData, EveryTypeOfTheGgmlFixturePasses) {
  const auto set = gguf::open_model_set(test_support::data_file("alltypes/alltypes.gguf").string());
  const gguf::ModelCheck check = gguf::check_model_data(set, 2);
  ASSERT_EQ(check.tensors.size(), test_support::alltypes_manifest().size());
  for (const gguf::TensorCheck& t : check.tensors) {
    SCOPED_TRACE(std::string(t.tensor->name));
    EXPECT_FALSE(t.refused()) << t.verdict.message;
    EXPECT_TRUE(gguf::validation_knows_type(t.tensor->type_id));
  }
  EXPECT_EQ(check.refused_count(), 0u);
}

}  // namespace

namespace {

TEST(ValidateData, MissingBytesAreRefused) {
  // A download cut inside the last tensor: llama.cpp refuses the model ("data is not within the
  // file bounds"); check --data says so and checks the tensors that are whole.
  test_support::TempDir dir;
  gguf::Writer w;
  w.add("general.architecture", gguf::OwnedValue::string("llama"));
  w.add_tensor("whole", {32}, ids::F32, std::string(128, '\x01'));
  w.add_tensor("cut", {256}, ids::F32, std::string(1024, '\x01'));
  std::string bytes = w.to_bytes();
  const uint64_t cut_at = w.data_offset() + w.tensor_offset(1) + 100;
  bytes.resize(cut_at);
  test_support::write_file(dir / "cut.gguf", bytes);
  const gguf::ModelSet set = gguf::open_model_set((dir / "cut.gguf").string());
  const gguf::ModelCheck check = gguf::check_model_data(set, 2);
  EXPECT_EQ(check.refused_count(), 1u);
  EXPECT_EQ(gguf::render_model_check(check),
            "tensor 'cut' data is not within the file bounds, model is corrupted or incomplete "
            "(cut.gguf holds 100 of its 1024 bytes)\n"
            "found tensors with invalid data: 1 of 2 tensors\n");
}

}  // namespace

namespace {

TEST(ValidateData, SplitModelNamesTheShardAndItsOffset) {
  test_support::TempDir dir;
  const auto paths = test_support::write_split_model(dir.path(), "split", 3);
  // A NaN as element 1 of blk.1.b, in the second shard.
  const auto shard = gguf::parse_file(paths[1].string());
  const gguf::TensorInfo* b = nullptr;
  for (const auto& t : shard->tensors)
    if (t.name == "blk.1.b") b = &t;
  ASSERT_NE(b, nullptr);
  std::string bytes = test_support::read_file(paths[1]);
  const uint64_t at = b->file_offset + 4;
  put32(bytes, at, 0xFFC00000u);
  test_support::write_file(paths[1], bytes);

  const gguf::ModelSet set = gguf::open_model_set(paths[2].string());  // any shard opens all
  ASSERT_EQ(set.shards.size(), 3u);
  const gguf::ModelCheck check = gguf::check_model_data(set, 2);
  EXPECT_EQ(gguf::render_model_check(check),
            "tensor 'blk.1.b' has invalid data: found nan value at block 1 (f32, byte " +
                std::to_string(at) +
                " of split-00002-of-00003.gguf)\n"
                "found tensors with invalid data: 1 of 6 tensors\n");
}

}  // namespace
