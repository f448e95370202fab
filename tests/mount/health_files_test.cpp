// tensors/<name>/sha256 and tensors/<name>/stats through a real mount: the hash against the
// real sha256sum of the tensor's byte range, the figures against values computed here from
// ggml's own dequantization (tests/data/alltypes/ref/<i>.f32); a planted NaN shows in both the
// counts and the verdict. `gguffs ls/cat` show the same files without mounting.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fs/tree/names.hpp"
#include "gguf/parser.hpp"
#include "gguf/writer.hpp"
#include "tests/mount/mount_fixture.hpp"

namespace {

namespace fsys = std::filesystem;
using mount_test::MountedModel;
using mount_test::run;
using mount_test::run_gguffs;
using test_support::data_file;
using test_support::read_file;

const fsys::path kAlltypes = data_file("alltypes/alltypes.gguf");

fsys::path tensor_dir(const MountedModel& m, const std::string& name) {
  return m / ("tensors/" + gguffs::names::encode(name));
}

std::map<std::string, std::string> parse_lines(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(": ");
    if (colon != std::string::npos) out[line.substr(0, colon)] = line.substr(colon + 2);
  }
  return out;
}

// The figures of stats, computed here from ggml's float32 values.
struct Expected {
  uint64_t nan = 0, inf = 0, zeros = 0, finite = 0;
  float min = INFINITY, max = -INFINITY;
  double mean = 0, std = 0;
  std::array<uint64_t, 16> histogram{};
};

Expected expected_from(const std::vector<float>& v) {
  Expected e;
  long double sum = 0;
  for (float x : v) {
    if (std::isnan(x))
      ++e.nan;
    else if (std::isinf(x))
      ++e.inf;
    else {
      ++e.finite;
      e.zeros += x == 0.0f;
      e.min = std::min(e.min, x);
      e.max = std::max(e.max, x);
      sum += x;
    }
  }
  e.mean = static_cast<double>(sum / e.finite);
  long double sq = 0;
  const double width = static_cast<double>(e.max) - e.min;
  for (float x : v) {
    if (!std::isfinite(x)) continue;
    sq += (x - static_cast<long double>(e.mean)) * (x - static_cast<long double>(e.mean));
    int bin =
        width > 0 ? static_cast<int>(std::floor((x - static_cast<double>(e.min)) * 16 / width)) : 0;
    ++e.histogram[static_cast<size_t>(std::clamp(bin, 0, 15))];
  }
  e.std = static_cast<double>(std::sqrt(sq / e.finite));
  return e;
}

std::vector<float> floats_of(const std::string& bytes) {
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

void expect_stats(const std::string& text, const std::vector<float>& values) {
  const Expected e = expected_from(values);
  auto f = parse_lines(text);
  EXPECT_EQ(f["elements"], std::to_string(values.size()));
  EXPECT_EQ(f["nan"], std::to_string(e.nan));
  EXPECT_EQ(f["inf"], std::to_string(e.inf));
  EXPECT_EQ(f["zeros"], std::to_string(e.zeros));
  EXPECT_EQ(std::stof(f["min"]), e.min);
  EXPECT_EQ(std::stof(f["max"]), e.max);
  EXPECT_EQ(std::stof(f["absmax"]), std::max(std::fabs(e.min), std::fabs(e.max)));
  EXPECT_NEAR(std::stod(f["mean"]), e.mean, 1e-9 * (1 + std::fabs(e.mean)));
  EXPECT_NEAR(std::stod(f["std"]), e.std, 1e-9 * (1 + e.std));
  std::string histogram;
  for (size_t i = 0; i < 16; ++i) histogram += (i ? " " : "") + std::to_string(e.histogram[i]);
  EXPECT_EQ(f["histogram"], histogram);
}

TEST(HealthFiles, Sha256EqualsSha256sumOfTheByteRange) {
  REQUIRE_MOUNT();
  MountedModel m(kAlltypes);
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const auto model = gguf::parse_file(kAlltypes.string());
  test_support::TempDir tmp;
  for (const gguf::TensorInfo& t : model->tensors) {
    SCOPED_TRACE(std::string(t.name));
    const fsys::path range = tmp / "range.bin";
    test_support::write_file(range, test_support::read_range(kAlltypes, t.file_offset, t.bytes));
    const auto sum = run("/usr/bin/sha256sum", {range.string()});
    ASSERT_EQ(sum.exit_code, 0);
    const std::string want = sum.out.substr(0, 64) + "\n";
    EXPECT_EQ(read_file(tensor_dir(m, std::string(t.name)) / "sha256"), want);
    EXPECT_EQ(fsys::file_size(tensor_dir(m, std::string(t.name)) / "sha256"), 65u);
  }
}

TEST(HealthFiles, StatsEqualFiguresOfGgmlsOwnDequantization) {
  REQUIRE_MOUNT();
  MountedModel m(kAlltypes);
  ASSERT_TRUE(m.mounted()) << m.result().err;
  for (const auto& row : test_support::alltypes_manifest()) {
    SCOPED_TRACE(row.name);
    const std::string text = read_file(tensor_dir(m, row.name) / "stats");
    expect_stats(text, floats_of(read_file(data_file("alltypes/" + row.ref_file))));
    EXPECT_EQ(parse_lines(text)["invalid"], "no");
  }
}

TEST(HealthFiles, PlantedNaNShowsInCountsAndVerdict) {
  REQUIRE_MOUNT();
  test_support::TempDir tmp;
  std::vector<float> values(64);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) - 20.5f;
  values[7] = NAN;
  values[9] = -INFINITY;
  values[30] = 0.0f;
  std::string bytes(values.size() * 4, '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  gguf::Writer w;
  w.add("general.architecture", gguf::OwnedValue::string("llama"));
  w.add_tensor("blk.0.attn_norm.weight", {64}, gguf::type_id::F32, bytes);
  const fsys::path model = tmp / "nan.gguf";
  w.write_file(model.string());
  MountedModel m(model);
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const std::string text = read_file(m / "tensors/blk.0.attn_norm.weight/stats");
  expect_stats(text, values);
  EXPECT_EQ(parse_lines(text)["invalid"], "found nan value at block 7");
  // The same file without mounting.
  const auto cat = run_gguffs({"cat", model.string(), "tensors/blk.0.attn_norm.weight/stats"});
  EXPECT_EQ(cat.exit_code, 0);
  EXPECT_EQ(cat.out, text);
  const auto ls = run_gguffs({"ls", model.string(), "tensors/blk.0.attn_norm.weight"});
  EXPECT_EQ(ls.out, "info\ndata\ndata.f32\ndata.npy\nsha256\nstats\n");
}

}  // namespace
