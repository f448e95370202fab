// Files the parser must refuse: each refusal is a FormatError of the right kind whose message
// names the file, the byte offset and what was expected there.
#include <gtest/gtest.h>

#include <cstring>

#include "gguf/parser.hpp"
#include "gguf/writer.hpp"
#include "tests/support/model_builders.hpp"

namespace {

using gguf::FormatError;
using gguf::OwnedValue;
using gguf::Writer;
using Kind = gguf::FormatError::Kind;

std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  return s;
}
std::string le32(uint32_t v) {
  return le64(v).substr(0, 4);
}

// Parses bytes named "bad.gguf" and returns the refusal; fails the test when there is none.
FormatError refusal(const std::string& bytes) {
  auto e = test_support::parse_error(bytes, "bad.gguf");
  if (!e) {
    ADD_FAILURE() << "the file was accepted";
    return FormatError(Kind::io, "", std::nullopt, "accepted");
  }
  EXPECT_EQ(e->file(), "bad.gguf");
  std::string what = e->what();
  EXPECT_EQ(what.rfind("bad.gguf: ", 0), 0u) << what;
  if (e->offset()) {
    EXPECT_NE(what.find("byte " + std::to_string(*e->offset())), std::string::npos) << what;
  }
  return *e;
}

void expect_refused(const std::string& bytes, Kind kind, std::optional<uint64_t> offset,
                    const std::vector<std::string>& fragments) {
  FormatError e = refusal(bytes);
  EXPECT_EQ(e.kind(), kind) << e.what();
  if (offset) {
    EXPECT_EQ(e.offset(), offset) << e.what();
  }
  for (const auto& f : fragments) EXPECT_NE(e.message().find(f), std::string::npos) << e.what();
}

// A header: magic, version 3, the counts.
std::string header(uint64_t n_tensors, uint64_t n_kv) {
  return "GGUF" + le32(3) + le64(n_tensors) + le64(n_kv);
}

// A one-tensor file without metadata whose tensor info (at byte 24) is encoded by hand.
std::string with_tensor_info(const std::vector<uint64_t>& ne, uint32_t type_id) {
  std::string f = header(1, 0) + le64(1) + "t" + le32(static_cast<uint32_t>(ne.size()));
  for (uint64_t d : ne) f += le64(d);
  f += le32(type_id) + le64(0);
  f.resize(f.size() + 64, '\0');  // padding and some data
  return f;
}

TEST(ReaderRefusals, EmptyFile) {
  expect_refused("", Kind::not_gguf, 0, {"empty"});
}

TEST(ReaderRefusals, GitLfsPointerFile) {
  expect_refused(
      "version https://git-lfs.github.com/spec/v1\n"
      "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
      "size 4683073184\n",
      Kind::not_gguf, 0, {"LFS"});
}

TEST(ReaderRefusals, BadMagic) {
  expect_refused("GGML" + le32(3) + std::string(64, '\0'), Kind::not_gguf, 0, {"GGUF", "GGML"});
}

TEST(ReaderRefusals, TooShortForTheMagic) {
  expect_refused("GGU", Kind::not_gguf, 0, {"GGUF"});
}

TEST(ReaderRefusals, TruncatedHeader) {
  std::string full = header(0, 0);
  for (size_t n : {4u, 7u, 8u, 15u, 23u}) {
    SCOPED_TRACE(n);
    FormatError e = refusal(full.substr(0, n));
    EXPECT_EQ(e.kind(), Kind::malformed) << e.what();  // the magic is there, the rest is not
    EXPECT_TRUE(e.offset().has_value());
  }
}

TEST(ReaderRefusals, HugeStringLength) {
  std::string f = header(0, 1) + le64(73939795391ULL) + std::string(100, 'a');
  // 24 + 8 bytes read, 100 left.
  expect_refused(f, Kind::malformed, 24,
                 {"string length 73939795391 exceeds the 100 bytes left in the file"});
}

TEST(ReaderRefusals, HugeStringValueLength) {
  std::string f = header(0, 1) + le64(1) + "k" + le32(8) + le64(1ULL << 40) + "xyz";
  expect_refused(f, Kind::malformed, 37, {"string length 1099511627776", "3 bytes left"});
}

TEST(ReaderRefusals, BadValueType) {
  std::string f = header(0, 1) + le64(1) + "k" + le32(13) + std::string(16, '\0');
  expect_refused(f, Kind::malformed, 33, {"13", "'k'"});
}

TEST(ReaderRefusals, BadArrayElementType) {
  std::string f = header(0, 1) + le64(1) + "k" + le32(9) + le32(77) + le64(1) + "\0";
  expect_refused(f, Kind::malformed, 37, {"77", "'k'"});
}

TEST(ReaderRefusals, MetadataCountThatCannotFit) {
  expect_refused(header(0, 1ULL << 62) + std::string(100, '\0'), Kind::malformed, std::nullopt,
                 {"4611686018427387904"});
}

TEST(ReaderRefusals, TensorCountThatCannotFit) {
  expect_refused(header(UINT64_MAX, 0) + std::string(100, '\0'), Kind::malformed, std::nullopt,
                 {"18446744073709551615"});
}

TEST(ReaderRefusals, ArrayCountThatCannotFit) {
  std::string f = header(0, 1) + le64(1) + "k" + le32(9) + le32(4) + le64(1ULL << 61) + "abcd";
  expect_refused(f, Kind::malformed, 41, {"2305843009213693952", "'k'"});
}

TEST(ReaderRefusals, MoreThanFourDimensions) {
  // Tensor info at 24: name 9 bytes, n_dims at 33.
  expect_refused(with_tensor_info({1, 1, 1, 1, 1}, 0), Kind::malformed, 33, {"5", "'t'"});
}

TEST(ReaderRefusals, NegativeDimension) {
  expect_refused(with_tensor_info({4, static_cast<uint64_t>(-1)}, 0), Kind::malformed, std::nullopt,
                 {"-1", "'t'"});
}

// llama.cpp's reader accepts these (its overflow check runs after the product wrapped).
TEST(ReaderRefusals, ElementCountOverflowF32) {
  expect_refused(with_tensor_info({1ULL << 32, 1ULL << 32}, gguf::type_id::F32), Kind::malformed,
                 std::nullopt, {"'t'", "4294967296"});
}

TEST(ReaderRefusals, ElementCountOverflowI8) {
  expect_refused(with_tensor_info({1ULL << 32, 1ULL << 31}, gguf::type_id::I8), Kind::malformed,
                 std::nullopt, {"'t'"});
}

TEST(ReaderRefusals, ElementCountOverflowQ8_0) {
  expect_refused(with_tensor_info({1ULL << 32, 1ULL << 32}, gguf::type_id::Q8_0), Kind::malformed,
                 std::nullopt, {"'t'"});
}

TEST(ReaderRefusals, ElementCountOverflowOverFourDimensions) {
  expect_refused(with_tensor_info({1ULL << 20, 1ULL << 20, 1ULL << 20, 1ULL << 20}, 0),
                 Kind::malformed, std::nullopt, {"'t'"});
}

TEST(ReaderRefusals, ByteSizeOverflow) {
  // 2^62 elements fit in int64, 2^62 * 4 bytes do not fit in 64 bits.
  expect_refused(with_tensor_info({1ULL << 31, 1ULL << 31}, gguf::type_id::F32), Kind::malformed,
                 std::nullopt, {"'t'"});
  expect_refused(with_tensor_info({1ULL << 31, 1ULL << 31}, gguf::type_id::F64), Kind::malformed,
                 std::nullopt, {"'t'"});
}

TEST(ReaderRefusals, HugeTensorNameLength) {
  std::string f = header(1, 0) + le64(1ULL << 50) + std::string(40, '\0');
  expect_refused(f, Kind::malformed, 24, {"string length 1125899906842624", "40 bytes left"});
}

TEST(ReaderRefusals, FileThatDoesNotExist) {
  try {
    gguf::parse_file("/nonexistent/dir/model.gguf");
    ADD_FAILURE() << "parsed a missing file";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.kind(), Kind::io);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/model.gguf"), std::string::npos);
  }
}

}  // namespace
