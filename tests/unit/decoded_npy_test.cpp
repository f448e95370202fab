// .npy v1.0 headers, parsed back by the tests' own reader (tests/support/npy_reader.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gguf/npy.hpp"
#include "tests/support/npy_reader.hpp"

namespace {

void expect_header(const std::string& descr, const std::vector<uint64_t>& shape,
                   const std::string& shape_text) {
  SCOPED_TRACE(descr + " " + shape_text);
  const std::string h = gguf::npy_header(descr, shape);
  const test_support::ParsedNpy p = test_support::parse_npy(h);
  EXPECT_EQ(p.major, 1);
  EXPECT_EQ(p.minor, 0);
  EXPECT_EQ(p.header_size, h.size());
  EXPECT_EQ(h.size() % 64, 0u);
  EXPECT_EQ(p.dict.size(), 3u);
  EXPECT_EQ(p.dict.at("descr"), "'" + descr + "'");
  EXPECT_EQ(p.dict.at("fortran_order"), "False");
  EXPECT_EQ(p.dict.at("shape"), shape_text);
}

TEST(NpyHeader, ParsesBackForSeveralShapesAndDtypes) {
  expect_header("<f4", {3, 48}, "(3, 48)");
  expect_header("<f2", {7}, "(7,)");
  expect_header("<f8", {2, 3, 2, 32}, "(2, 3, 2, 32)");
  expect_header("|i1", {1}, "(1,)");
  expect_header("<i8", {0}, "(0,)");
  expect_header(">f4", {128256, 4096}, "(128256, 4096)");
  expect_header("<f4", {}, "()");
  // Four dimensions of 20 digits still fit one 128-byte header.
  const uint64_t big = UINT64_MAX;
  expect_header("<f4", {big, big, big, big},
                "(18446744073709551615, 18446744073709551615, 18446744073709551615, "
                "18446744073709551615)");
}

TEST(NpyHeader, ExactBytesOfASmallHeader) {
  // 10 + 60-byte dict + 57 spaces + '\n' = 128 bytes; the length field says 118 (0x76).
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 48), }";
  const std::string want = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict +
                           std::string(128 - 10 - dict.size() - 1, ' ') + "\n";
  EXPECT_EQ(gguf::npy_header("<f4", {3, 48}), want);
}

TEST(NpyHeader, ShapeIsNeReversed) {
  gguf::TensorInfo t;
  t.n_dims = 4;
  t.ne = {32, 2, 3, 2};
  EXPECT_EQ(gguf::numpy_shape(t), (std::vector<uint64_t>{2, 3, 2, 32}));
  t.n_dims = 1;
  t.ne = {256, 1, 1, 1};
  EXPECT_EQ(gguf::numpy_shape(t), (std::vector<uint64_t>{256}));
}

}  // namespace
