// `gguffs diff` and `gguffs check --data` as a user runs them: exit codes (0 same / valid, 1
// different, 10 refused data, the usual codes for errors), and a split model against its merged
// form written by `gguffs cat SHARD model.gguf`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>

#include "gguf/parser.hpp"
#include "gguf/writer.hpp"
#include "tests/mount/mount_fixture.hpp"

namespace {

namespace fsys = std::filesystem;
using mount_test::run;
using mount_test::run_gguffs;
using test_support::data_file;

const std::string kAlltypes = data_file("alltypes/alltypes.gguf").string();
const std::string kShard = data_file("split/split-00001-of-00003.gguf").string();

TEST(DiffCli, IdenticalFilesExitZero) {
  test_support::TempDir tmp;
  const fsys::path copy = tmp / "copy.gguf";
  fsys::copy_file(kAlltypes, copy);
  const auto r = run_gguffs({"diff", kAlltypes, copy.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("same: keys 0 added", 0), 0u) << r.out;
}

TEST(DiffCli, OneChangedByteExitsOne) {
  test_support::TempDir tmp;
  const fsys::path copy = tmp / "copy.gguf";
  std::string bytes = test_support::read_file(kAlltypes);
  const auto model = gguf::parse_file(kAlltypes);
  const auto& tensors = model->tensors;
  const auto it = std::find_if(tensors.begin(), tensors.end(), [](const gguf::TensorInfo& t) {
    return t.name == "with space.weight";
  });
  ASSERT_NE(it, tensors.end());
  const gguf::TensorInfo& last = *it;
  bytes[last.file_offset + 13] = static_cast<char>(bytes[last.file_offset + 13] ^ 1);
  test_support::write_file(copy, bytes);
  const auto r = run_gguffs({"diff", kAlltypes, copy.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("~ tensor with space.weight: other bytes (F32, ne 8), first difference at "
                       "byte 13 of 32\n"),
            std::string::npos)
      << r.out;
  const auto json = run_gguffs({"diff", "--json", kAlltypes, copy.string()});
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_EQ(json.out.rfind("{\"same\":false,", 0), 0u) << json.out;
}

TEST(DiffCli, ErrorsKeepTheirExitCodes) {
  EXPECT_EQ(run_gguffs({"diff", kAlltypes}).exit_code, 2);
  EXPECT_EQ(run_gguffs({"diff", kAlltypes, "/nonexistent/model.gguf"}).exit_code, 3);
  EXPECT_EQ(run_gguffs({"diff", "--data", kAlltypes, kAlltypes}).exit_code, 2);
  EXPECT_EQ(run_gguffs({"check", "--json", kAlltypes}).exit_code, 2);
}

TEST(DiffCli, SplitModelEqualsItsMergedForm) {
  test_support::TempDir tmp;
  const fsys::path merged = tmp / "model.gguf";
  const auto cat =
      run("/bin/sh", {"-c", "\"$0\" cat \"$1\" model.gguf > \"$2\"",
                      test_support::gguffs_binary().string(), kShard, merged.string()});
  ASSERT_EQ(cat.exit_code, 0) << cat.err;
  const auto r = run_gguffs({"diff", kShard, merged.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("same: ", 0), 0u) << r.out;
  // The shard alone (--single) lacks the other shards' tensors.
  const auto single = run_gguffs({"diff", "--single", kShard, merged.string()});
  EXPECT_EQ(single.exit_code, 1);
}

TEST(CheckDataCli, CleanModelExitsZeroAndPlantedNaNExitsTen) {
  const auto clean = run_gguffs({"check", "--data", kAlltypes});
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_NE(clean.out.find("tensor data valid: 52 tensors"), std::string::npos) << clean.out;
  EXPECT_EQ(clean.err, "");  // no progress line when stderr is not a terminal

  test_support::TempDir tmp;
  gguf::Writer w;
  w.add("general.architecture", gguf::OwnedValue::string("llama"));
  std::string bytes(256 * 4, '\0');
  const float one = 1.0f, nan = __builtin_nanf("");
  for (size_t i = 0; i < 256; ++i) std::memcpy(bytes.data() + 4 * i, i == 100 ? &nan : &one, 4);
  w.add_tensor("blk.0.attn_norm.weight", {256}, gguf::type_id::F32, bytes);
  const fsys::path model = tmp / "nan.gguf";
  w.write_file(model.string());
  const auto r = run_gguffs({"check", "--data", model.string()});
  EXPECT_EQ(r.exit_code, 10);
  EXPECT_EQ(r.out,
            "tensor 'blk.0.attn_norm.weight' has invalid data: found nan value at block "
            "100 (f32, byte " +
                std::to_string(w.data_offset() + 400) +
                " of nan.gguf)\nfound tensors with invalid data: 1 of 1 tensors\n");
  // Without --data only the header is checked.
  EXPECT_EQ(run_gguffs({"check", model.string()}).exit_code, 0);
}

TEST(CheckDataCli, SplitModelIsCheckedAcrossShards) {
  const auto r = run_gguffs({"check", "--data", kShard});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("tensor data valid: "), std::string::npos) << r.out;
}

TEST(CheckDataCli, ProgressLineOnlyOnATerminal) {
  // script(1) gives the program a terminal; the line is rewritten in place and cleared at the end.
  const std::string command = test_support::gguffs_binary().string() + " check --data " + kAlltypes;
  const auto tty = run("/usr/bin/script", {"-qec", command, "/dev/null"});
  EXPECT_EQ(tty.exit_code, 0) << tty.err;
  EXPECT_NE(tty.out.find("\rchecked 0.00 of 0.00 GB (100%), "), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("\r\033[K"), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("tensor data valid: 52 tensors"), std::string::npos) << tty.out;
}

}  // namespace
