// Split models through the real mount: the fixture's shards mounted from each shard name, checked
// against the single-file alltypes fixture (same tensors, bytes read with pread) and the shard
// files; model.gguf parsed with our reader, read and mapped; --single; refusals with exit 7.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fs/cli/exit_codes.hpp"
#include "fs/tree/names.hpp"
#include "gguf/parser.hpp"
#include "tests/mount/mount_fixture.hpp"
#include "tests/support/split_builders.hpp"

namespace {

namespace fsys = std::filesystem;
using mount_test::MountedModel;
using test_support::data_file;
using test_support::read_file;

std::string shard_path(int k) {
  return data_file("split/split-0000" + std::to_string(k) + "-of-00003.gguf").string();
}

bool same_value(const gguf::Value& a, const gguf::Value& b) {
  return a.type == b.type && a.bits == b.bits && a.str == b.str &&
         a.array.element_type == b.array.element_type && a.array.count == b.array.count &&
         a.array.bytes == b.array.bytes;
}

class SplitMount : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    REQUIRE_MOUNT();
    mount_ = std::make_unique<MountedModel>(shard_path(GetParam()));
    ASSERT_EQ(mount_->result().exit_code, 0) << mount_->result().err;
    ASSERT_TRUE(mount_->mounted());
    for (int k = 1; k <= 3; ++k) shards_.push_back(gguf::parse_file(shard_path(k)));
  }
  void TearDown() override {
    if (mount_) {
      EXPECT_TRUE(mount_->unmount());
    }
  }
  std::unique_ptr<MountedModel> mount_;
  std::vector<gguf::ModelPtr> shards_;  // read directly, to compare with
};

TEST_P(SplitMount, TreeHoldsEveryShardsTensorsWithTheSingleFilesBytes) {
  const auto alltypes = gguf::parse_file(data_file("alltypes/alltypes.gguf").string());
  std::map<std::string, const gguf::TensorInfo*> reference;
  for (const auto& t : alltypes->tensors) reference[std::string(t.name)] = &t;
  const MountedModel& m = *mount_;
  size_t count = 0;
  for (const auto& e : fsys::directory_iterator(m / "tensors")) (void)e, ++count;
  EXPECT_EQ(count, 18u);
  for (int k = 1; k <= 3; ++k) {
    for (const auto& t : shards_[k - 1]->tensors) {
      const fsys::path dir = m / "tensors" / gguffs::names::encode(t.name);
      const gguf::TensorInfo& r = *reference.at(std::string(t.name));
      EXPECT_EQ(read_file(dir / "data"),
                test_support::read_range(data_file("alltypes/alltypes.gguf").string(),
                                         r.file_offset, r.bytes))
          << t.name;
      const std::string info = read_file(dir / "info");
      EXPECT_NE(info.find("\nshard: " + std::to_string(k) + "\nfile: split-0000" +
                          std::to_string(k) + "-of-00003.gguf\n"),
                std::string::npos)
          << info;
    }
  }
  // metadata/ is the first shard's, split keys included.
  EXPECT_EQ(read_file(m / "metadata" / "split.count"), "3\n");
  EXPECT_EQ(read_file(m / "metadata" / "general.name"), "oracle-all-types");
  const std::string summary = read_file(m / "summary.txt");
  EXPECT_NE(summary.find(" shard 2 split-00002-of-00003.gguf 335,872 bytes 6 tensors\n"),
            std::string::npos)
      << summary;
}

TEST_P(SplitMount, ModelGgufIsOneValidFileWithEveryShardsBytes) {
  const std::string path = (*mount_ / "model.gguf").string();
  const auto merged = gguf::parse_file(path);  // our reader, through the mount
  EXPECT_TRUE(merged->warnings.empty()) << merged->warnings.front();
  EXPECT_EQ(merged->version, 3u);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(merged->file_size, static_cast<uint64_t>(st.st_size));
  // Metadata: the first shard's without split.* (49 - 3), same order, same values.
  ASSERT_EQ(merged->metadata.size(), 46u);
  size_t i = 0;
  for (const auto& e : shards_[0]->metadata) {
    if (e.key.starts_with("split.")) continue;
    EXPECT_EQ(merged->metadata[i].key, e.key);
    EXPECT_TRUE(same_value(merged->metadata[i].value, e.value)) << e.key;
    ++i;
  }
  for (const auto& e : merged->metadata) EXPECT_FALSE(e.key.starts_with("split.")) << e.key;
  // Tensors: all 18 in shard order, each with its shard's bytes; data packed to the end.
  ASSERT_EQ(merged->tensors.size(), 18u);
  const std::string whole = read_file(path);
  ASSERT_EQ(whole.size(), static_cast<size_t>(st.st_size));
  size_t n = 0;
  for (const auto& shard : shards_) {
    for (const auto& t : shard->tensors) {
      const gguf::TensorInfo& mt = merged->tensors[n++];
      EXPECT_EQ(mt.name, t.name);
      EXPECT_EQ(mt.type_id, t.type_id);
      EXPECT_EQ(mt.ne, t.ne);
      EXPECT_EQ(whole.substr(mt.file_offset, mt.bytes),
                test_support::read_range(shard->name(), t.file_offset, t.bytes))
          << t.name;
    }
  }
  const auto& last = merged->tensors.back();
  EXPECT_EQ((last.file_offset + last.bytes + 31) / 32 * 32, merged->file_size);

  // Mapped: the same bytes as read().
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  void* p = mmap(nullptr, whole.size(), PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(p, MAP_FAILED) << std::strerror(errno);
  EXPECT_TRUE(std::memcmp(p, whole.data(), whole.size()) == 0);
  munmap(p, whole.size());
  close(fd);
}

INSTANTIATE_TEST_SUITE_P(FromEachShard, SplitMount, ::testing::Values(1, 2, 3));

TEST(SplitMountSingle, SingleMountsJustTheGivenShard) {
  REQUIRE_MOUNT();
  MountedModel m(shard_path(2), {"--single"});
  ASSERT_EQ(m.result().exit_code, 0) << m.result().err;
  size_t count = 0;
  for (const auto& e : fsys::directory_iterator(m / "tensors")) (void)e, ++count;
  EXPECT_EQ(count, 6u);
  EXPECT_EQ(read_file(m / "model.gguf"), read_file(shard_path(2)));
  EXPECT_EQ(read_file(m / "metadata" / "split.no"), "1\n");
  EXPECT_EQ(read_file(m / "tensors" / "output.weight" / "info").find("shard:"), std::string::npos);
}

TEST(SplitMountRefusal, MissingShardExitsWithSevenNamingIt) {
  test_support::TempDir dir;
  const auto paths = test_support::write_split_model(dir.path(), "m", 3);
  fsys::remove(paths[2]);
  fsys::create_directory(dir / "mnt");
  const auto r = mount_test::run_gguffs({paths[0].string(), (dir / "mnt").string()});
  EXPECT_EQ(r.exit_code, gguffs::kExitSplit);
  EXPECT_NE(r.err.find(paths[2].string() + ": shard 3 of 3 is missing or unreadable"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(mount_test::is_fuse_mount(dir / "mnt"));
  const auto check = mount_test::run_gguffs({"check", paths[1].string()});
  EXPECT_EQ(check.exit_code, gguffs::kExitSplit);
  // --single still reads the shard alone.
  const auto single = mount_test::run_gguffs({"check", "--single", paths[1].string()});
  EXPECT_EQ(single.exit_code, 0) << single.err;
}

TEST(SplitMountRefusal, EachInconsistencyExitsWithSeven) {
  test_support::TempDir dir;
  const auto paths = test_support::write_split_model(dir.path(), "m", 3);
  struct Case {
    std::function<void()> break_it;
    std::string file, message;
  };
  const std::vector<Case> cases = {
      {[&] { fsys::copy_file(paths[0], paths[1], fsys::copy_options::overwrite_existing); },
       paths[1].string(), "split.no is 0 (shard 1) but the file name says shard 2"},
      {[&] { test_support::split_shard_writer(1, 5, 6).write_file(paths[1].string()); },
       paths[1].string(), "split.count is 5 but the file name says 3 shards"},
      {[&] {
         auto w = test_support::split_shard_writer(1, 3, 6);
         w.add_tensor("blk.2.b", {3}, gguf::type_id::F32, test_support::f32_bytes(0, 3));
         w.write_file(paths[1].string());
       },
       paths[2].string(), "tensor 'blk.2.b' is also in shard 2"},
      {[&] { test_support::split_shard_writer(0, 3, 5).write_file(paths[0].string()); },
       paths[0].string(), "split.tensors.count is 5 but the 3 shards hold 6 tensors"},
  };
  for (const Case& c : cases) {
    test_support::write_split_model(dir.path(), "m", 3);
    c.break_it();
    const auto r = mount_test::run_gguffs({"summary", paths[2].string()});
    EXPECT_EQ(r.exit_code, gguffs::kExitSplit) << c.message;
    EXPECT_NE(r.err.find(c.file + ": " + c.message), std::string::npos) << r.err;
  }
}

}  // namespace
