// tensors/<name>/stats for the cases the mount tests do not reach: a type that does not decode,
// a tensor without a finite value, all values equal. (Figures of real data: the mount test
// against ggml's dequantization, tests/mount/health_files_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "gguf/parser.hpp"
#include "gguf/stats/tensor_stats.hpp"
#include "gguf/writer.hpp"
#include "tests/support/test_support.hpp"

namespace {

namespace ids = gguf::type_id;

std::string stats_of(uint32_t type, std::vector<uint64_t> ne, std::string bytes) {
  test_support::TempDir dir;
  gguf::Writer w;
  w.add_tensor("t", std::move(ne), type, std::move(bytes));
  w.write_file((dir / "m.gguf").string());
  const auto model = gguf::parse_file((dir / "m.gguf").string());
  return gguf::render_tensor_stats(gguf::compute_tensor_stats(*model, model->tensors.at(0)));
}

std::string floats(std::initializer_list<float> values) {
  std::string b(values.size() * 4, '\0');
  size_t i = 0;
  for (float v : values) std::memcpy(b.data() + 4 * i++, &v, 4);
  return b;
}

TEST(TensorStats, TypesThatDoNotDecodeShowTheVerdictOnly) {
  EXPECT_EQ(stats_of(ids::Q8_1, {32}, std::string(36, '\0')),
            "elements: 32\nvalues: not decoded (Q8_1 has no ggml dequantizer)\n"
            "invalid: invalid type 9\n");
}

TEST(TensorStats, NoFiniteValue) {
  EXPECT_EQ(stats_of(ids::F32, {3}, floats({NAN, INFINITY, -INFINITY})),
            "elements: 3\nnan: 1\ninf: 2\nzeros: 0\nmin: nan\nmax: nan\nmean: nan\nstd: nan\n"
            "absmax: nan\ninvalid: found nan value at block 0\n"
            "histogram: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
}

TEST(TensorStats, SmallExactCase) {
  // -2, 0, 0, 6: mean 1, population variance (9 + 1 + 1 + 25) / 4 = 9, std 3; the width 8 gives
  // bins of 0.5: -2 in bin 0, 0 in bin 4, 6 (the max) in the last.
  EXPECT_EQ(stats_of(ids::F32, {4}, floats({-2.0f, 0.0f, -0.0f, 6.0f})),
            "elements: 4\nnan: 0\ninf: 0\nzeros: 2\nmin: -2\nmax: 6\nmean: 1\nstd: 3\n"
            "absmax: 6\ninvalid: no\nhistogram: 1 0 0 0 2 0 0 0 0 0 0 0 0 0 0 1\n");
  EXPECT_EQ(stats_of(ids::F32, {2}, floats({0.5f, 0.5f})),
            "elements: 2\nnan: 0\ninf: 0\nzeros: 0\nmin: 0.5\nmax: 0.5\nmean: 0.5\nstd: 0\n"
            "absmax: 0.5\ninvalid: no\nhistogram: 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
}

}  // namespace
