// `gguffs ls` and `gguffs cat` against the mounted tree, file by file; cat streaming a tensor
// far larger than its memory use; -v.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "fs/cli/offline_commands.hpp"
#include "fs/tree/model_tree.hpp"
#include "gguf/parser.hpp"
#include "tests/mount/mount_fixture.hpp"
#include "tests/support/model_builders.hpp"

namespace {

namespace fsys = std::filesystem;
using mount_test::run_gguffs;
using test_support::data_file;
using test_support::read_file;

const std::string kAlltypes = data_file("alltypes/alltypes.gguf").string();

// The names readdir gives, in its order, without "." and "..".
std::vector<std::string> readdir_names(const fsys::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fsys::directory_iterator(dir)) names.push_back(e.path().filename());
  return names;
}

std::string lines(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += n + "\n";
  return out;
}

// cat_path into a temporary file, read back.
std::string cat_in_process(const gguffs::Tree& tree, const std::string& path) {
  test_support::TempDir dir;
  const auto file = dir / "out";
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0);
  gguffs::cat_path(tree, path, fd);
  close(fd);
  return read_file(file);
}

TEST(Offline, EveryFileAndDirectoryMatchesTheMount) {
  REQUIRE_MOUNT();
  mount_test::MountedModel mnt(kAlltypes);
  ASSERT_TRUE(mnt.mounted()) << mnt.result().err;
  // The same tree code the command line uses, called in-process for the ~300 entries; the
  // program itself is compared below on a sample.
  const auto tree = gguffs::build_model_tree(gguf::parse_file(kAlltypes), {getuid(), getgid()});
  size_t files = 0, dirs = 1;
  EXPECT_EQ(lines(readdir_names(mnt.path())), [&] {
    char* buf = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&buf, &size);
    gguffs::list_path(*tree, "", false, out);
    std::fclose(out);
    std::string text(buf, size);
    std::free(buf);
    return text;
  }());
  for (const auto& e : fsys::recursive_directory_iterator(mnt.path())) {
    const std::string rel = fsys::relative(e.path(), mnt.path()).string();
    if (e.is_directory()) {
      ++dirs;
      char* buf = nullptr;
      size_t size = 0;
      std::FILE* out = open_memstream(&buf, &size);
      gguffs::list_path(*tree, rel, false, out);
      std::fclose(out);
      EXPECT_EQ(std::string(buf, size), lines(readdir_names(e.path()))) << rel;
      std::free(buf);
    } else {
      ++files;
      EXPECT_TRUE(cat_in_process(*tree, rel) == read_file(e.path())) << rel;
    }
  }
  // + hf/: config.json, model.safetensors, unmapped.txt, 12 tensors with info, data, data.npy.
  EXPECT_EQ(files, 5u + 46u + 52u * 4u + 3u + 12u * 3u);
  EXPECT_EQ(dirs, 3u + 52u + 1u + 12u);
}

TEST(Offline, TheProgramMatchesTheMountAndLs) {
  REQUIRE_MOUNT();
  mount_test::MountedModel mnt(kAlltypes);
  ASSERT_TRUE(mnt.mounted()) << mnt.result().err;
  for (const std::string rel : {"", "tensors/blk.0.attn_q.weight", "metadata"}) {
    const auto r = run_gguffs({"ls", kAlltypes, rel});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, lines(readdir_names(mnt / rel))) << rel;
    // -l against GNU ls in the mount's order with the same time style.
    const auto ls = mount_test::run(
        "/usr/bin/env", {"LC_ALL=C", "ls", "-lU", "--time-style=long-iso", (mnt / rel).string()});
    const auto ours = run_gguffs({"ls", "-l", kAlltypes, rel});
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    EXPECT_EQ(ours.out, ls.out) << rel;
  }
  for (const std::string rel :
       {"summary.txt", "metadata.json", "tensors.tsv", "tensors.json",
        "metadata/tokenizer.ggml.tokens", "model.gguf", "tensors/token_embd.weight/data.f32"}) {
    const auto r = run_gguffs({"cat", kAlltypes, rel});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out == read_file(mnt / rel)) << rel;
  }
  // A file given to ls prints its path, as ls does.
  EXPECT_EQ(run_gguffs({"ls", kAlltypes, "tensors.tsv"}).out, "tensors.tsv\n");
}

TEST(Offline, MissingPathsAndDirectoriesAreRefused) {
  auto r = run_gguffs({"cat", kAlltypes, "tensors/nope/data"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gguffs: tensors/nope/data: no such file or directory in the model\n");
  r = run_gguffs({"cat", kAlltypes, "tensors"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gguffs: tensors: is a directory\n");
  r = run_gguffs({"ls", kAlltypes, "nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(run_gguffs({"cat", kAlltypes}).exit_code, 2);
  EXPECT_EQ(run_gguffs({"ls"}).exit_code, 2);
  EXPECT_EQ(run_gguffs({"-l", kAlltypes, "/tmp"}).exit_code, 2);  // -l belongs to ls
}

TEST(Offline, CatStreamsABigDecodedTensorInSmallMemory) {
  // 16 Mi F16 ones: 32 MiB stored, data.f32 64 MiB of 1.0f. Reading in 1 MiB pieces keeps the
  // program far below the output's size.
  constexpr uint64_t kElements = 16u << 20;
  std::string ones(kElements * 2, '\0');
  for (uint64_t i = 0; i < kElements; ++i) ones[2 * i + 1] = '\x3c';  // fp16 0x3C00 = 1.0
  gguf::Writer w;
  w.add_tensor("big", {kElements}, gguf::type_id::F16, std::move(ones));
  test_support::TempDir dir;
  w.write_file((dir / "big.gguf").string());
  const auto r = mount_test::run(
      "/bin/sh",
      {"-c", test_support::gguffs_binary().string() + " cat " + (dir / "big.gguf").string() +
                 " tensors/big/data.f32 > " + (dir / "big.f32").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct rusage usage = {};
  getrusage(RUSAGE_CHILDREN, &usage);
#if !defined(__SANITIZE_ADDRESS__)  // ASan's shadow memory and quarantine inflate RSS by design
  EXPECT_LT(usage.ru_maxrss, 40 * 1024) << "KiB";  // the output is 64 MiB
#endif
  const std::string out = read_file(dir / "big.f32");
  ASSERT_EQ(out.size(), kElements * 4);
  const float one = 1.0f;
  for (uint64_t i = 0; i < kElements; i += 4099)
    ASSERT_EQ(std::memcmp(out.data() + 4 * i, &one, 4), 0) << i;
  EXPECT_EQ(std::memcmp(out.data() + out.size() - 4, &one, 4), 0);
}

TEST(Offline, VerboseReportsTheParseAndTheWarnings) {
  gguf::Writer w = test_support::small_model_writer();
  w.add("general.name", gguf::OwnedValue::string("again"));  // a duplicate key: a warning
  test_support::TempDir dir;
  w.write_file((dir / "dup.gguf").string());
  const auto model = gguf::parse_file((dir / "dup.gguf").string());
  ASSERT_FALSE(model->warnings.empty());
  const auto r = run_gguffs({"-v", "ls", (dir / "dup.gguf").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("gguffs: parsed 1 file in ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(": GGUF v3, little-endian, 8 KV pairs, 3 tensors, alignment 32, data at "
                       "byte 608, "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("gguffs: built the tree in "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gguffs: warning: " + model->warnings[0] + "\n"), std::string::npos)
      << r.err;
  // Without -v, nothing on stderr.
  EXPECT_EQ(run_gguffs({"ls", (dir / "dup.gguf").string()}).err, "");
}

}  // namespace
