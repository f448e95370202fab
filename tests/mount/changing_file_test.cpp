// The model file changing under a mount: truncated in place, deleted, replaced. The daemon keeps
// serving what is still there, fails reads of bytes that are gone with EIO (never a short read,
// a SIGBUS or a hang), warns once, and unmounts cleanly.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "fs/tree/names.hpp"
#include "gguf/parser.hpp"
#include "tests/mount/mount_fixture.hpp"

extern char** environ;

namespace {

namespace fsys = std::filesystem;
using test_support::TempDir;

// gguffs -f MODEL MOUNTPOINT with stderr kept in err_path (the daemon's one warning goes there).
pid_t spawn_foreground(const fsys::path& model, const fsys::path& mount_point,
                       const fsys::path& err_path) {
  std::vector<std::string> all = {test_support::gguffs_binary().string(), "-f", model.string(),
                                  mount_point.string()};
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

// Reads the whole file; returns the bytes, or sets err to the errno of the first failing read.
std::string read_all(const fsys::path& path, int& err) {
  err = 0;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    err = errno;
    return {};
  }
  std::string out;
  char buf[65536];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0) {
      err = errno;
      break;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

size_t count_of(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// A copy of alltypes mounted by a foreground daemon (stderr kept), then truncated in place to
// half its size (same inode, the daemon's descriptor sees it) before any data is cached.
class TruncatedWhileMounted : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_MOUNT();
    whole_ = test_support::read_file(test_support::data_file("alltypes/alltypes.gguf"));
    test_support::write_file(model_, whole_);
    fsys::create_directory(mnt_);
    parsed_ = gguf::parse_file(model_.string());
    pid_ = spawn_foreground(model_, mnt_, err_);
    ASSERT_GT(pid_, 0);
    ASSERT_TRUE(mount_test::wait_for_mount(mnt_, true));
    half_ = whole_.size() / 2;
    ASSERT_EQ(truncate(model_.c_str(), static_cast<off_t>(half_)), 0);
  }

  // After a failure before expect_clean_stop_after_one_warning: leave no daemon or mount behind.
  void TearDown() override {
    if (pid_ <= 0) return;
    mount_test::unmount(mnt_);
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }

  bool before_the_cut(const gguf::TensorInfo& t) const { return t.file_offset + t.bytes <= half_; }

  // The daemon survived, unmounts cleanly with exit code 0, and warned exactly once.
  void expect_clean_stop_after_one_warning() {
    EXPECT_EQ(kill(pid_, 0), 0) << "the daemon died";
    EXPECT_TRUE(mount_test::unmount(mnt_));
    int status = 0;
    ASSERT_EQ(waitpid(pid_, &status, 0), pid_);
    pid_ = -1;
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    const std::string log = test_support::read_file(err_);
    EXPECT_EQ(count_of(log, "warning: the model file shrank while mounted"), 1u) << log;
  }

  TempDir dir_;
  const fsys::path model_ = dir_ / "model.gguf", mnt_ = dir_ / "mnt", err_ = dir_ / "err";
  std::string whole_;
  gguf::ModelPtr parsed_;
  pid_t pid_ = -1;
  size_t half_ = 0;
};

TEST_F(TruncatedWhileMounted, DataGivesEioPastTheCutAndOneWarning) {
  size_t whole_tensors = 0, failed_tensors = 0;
  for (const gguf::TensorInfo& t : parsed_->tensors) {
    const fsys::path data = mnt_ / "tensors" / std::string(t.name) / "data";
    if (!fsys::exists(data)) continue;  // names that need escaping are covered elsewhere
    int e = 0;
    const std::string got = read_all(data, e);
    if (before_the_cut(t)) {
      // Wholly before the cut: still readable, and still right.
      EXPECT_EQ(e, 0) << t.name;
      EXPECT_TRUE(got == whole_.substr(t.file_offset, t.bytes)) << t.name;
      ++whole_tensors;
    } else {
      // Reaches past the cut: an error, never a silently short file.
      EXPECT_EQ(e, EIO) << t.name << " read " << got.size() << " of " << t.bytes;
      EXPECT_LT(got.size(), t.bytes) << t.name;
      ++failed_tensors;
    }
  }
  EXPECT_GT(whole_tensors, 10u);
  EXPECT_GT(failed_tensors, 5u);

  int e = 0;
  const std::string all = read_all(mnt_ / "model.gguf", e);
  EXPECT_EQ(e, EIO);
  EXPECT_TRUE(whole_.compare(0, all.size(), all) == 0) << "model.gguf bytes before the error";

  // The header lives in the daemon's memory: text files are unaffected.
  EXPECT_EQ(test_support::read_file(mnt_ / "metadata/general.architecture"), "llama");
  EXPECT_FALSE(test_support::read_file(mnt_ / "summary.txt").empty());
  expect_clean_stop_after_one_warning();
}

// data.f32 reads the stored blocks itself (pread, then decoding) rather than splicing them: the
// same errors and the same one warning.
TEST_F(TruncatedWhileMounted, DecodedReadsGiveEioPastTheCutAndOneWarning) {
  size_t whole_tensors = 0, failed_tensors = 0;
  for (const auto& row : test_support::alltypes_manifest()) {
    const gguf::TensorInfo& t = parsed_->tensors.at(static_cast<size_t>(row.index));
    const fsys::path f32 = mnt_ / "tensors" / gguffs::names::encode(row.name) / "data.f32";
    int e = 0;
    const std::string got = read_all(f32, e);
    if (before_the_cut(t)) {
      EXPECT_EQ(e, 0) << row.name;
      EXPECT_TRUE(got ==
                  test_support::read_file(test_support::data_file("alltypes/" + row.ref_file)))
          << row.name;
      ++whole_tensors;
    } else {
      EXPECT_EQ(e, EIO) << row.name << " read " << got.size();
      ++failed_tensors;
    }
  }
  EXPECT_GT(whole_tensors, 10u);
  EXPECT_GT(failed_tensors, 5u);
  expect_clean_stop_after_one_warning();
}

TEST(ChangingFile, DeletedOrReplacedFileKeepsServingTheMountedBytes) {
  REQUIRE_MOUNT();
  TempDir dir;
  const std::string whole =
      test_support::read_file(test_support::data_file("alltypes/alltypes.gguf"));
  for (const bool replace : {false, true}) {
    const fsys::path model = dir / "model.gguf";
    test_support::write_file(model, whole);
    mount_test::MountedModel m(model);
    ASSERT_TRUE(m.mounted()) << m.result().err;
    if (replace) {
      // What a re-download usually does: write a new file and rename it over the old one.
      test_support::write_file(dir / "new.gguf", std::string(1000, 'x'));
      fsys::rename(dir / "new.gguf", model);
    } else {
      fsys::remove(model);
    }
    // The open descriptor keeps the old inode: the mounted model stays whole and consistent.
    EXPECT_TRUE(test_support::read_file(m / "model.gguf") == whole) << "replace=" << replace;
    EXPECT_TRUE(test_support::read_file(m / "tensors/output.weight/data") ==
                whole.substr(5280 + 449056, 6720));
    EXPECT_TRUE(m.unmount());
    fsys::remove(model);
  }
}

}  // namespace
