// Mounting like any other filesystem: mount -t fuse.gguffs and an fstab line (through
// mount.fuse3), the default mount point and -u, and the exit codes a script can tell apart.
//
// mount(8) runs its helpers without PATH, so mount.fuse3's shell finds `gguffs` only in the
// standard directories: each test runs in a private mount namespace (unshare -m) with a folder
// holding a gguffs symlink bound over /usr/local/sbin, so nothing outside the test changes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/mount/mount_fixture.hpp"
#include "tests/support/model_builders.hpp"

namespace {

namespace fsys = std::filesystem;
using mount_test::run;
using mount_test::run_gguffs;
using test_support::data_file;
using test_support::TempDir;

const std::string kAlltypes = data_file("alltypes/alltypes.gguf").string();

// Runs script with bash in a private mount namespace where `gguffs` is on the helpers' PATH.
mount_test::RunResult run_in_namespace(const TempDir& dir, const std::string& script) {
  const fsys::path bin = dir / "bin";
  fsys::create_directories(bin);
  fsys::create_symlink(test_support::gguffs_binary(), bin / "gguffs");
  const std::string prologue = "set -e\nmount --bind " + bin.string() + " /usr/local/sbin\n";
  return run("/usr/bin/unshare",
             {"-m", "--propagation", "private", "/bin/bash", "-c", prologue + script});
}

bool can_use_namespaces() {
  return mount_test::can_mount() && fsys::is_directory("/usr/local/sbin") &&
         fsys::exists("/usr/bin/unshare") && fsys::exists("/sbin/mount.fuse3");
}

#define REQUIRE_NAMESPACES()                                                                  \
  do {                                                                                        \
    if (!can_use_namespaces()) GTEST_SKIP() << "needs root, /dev/fuse, unshare, mount.fuse3"; \
  } while (0)

TEST(MountHelper, MountTypeFuseGguffs) {
  REQUIRE_NAMESPACES();
  TempDir dir;
  fsys::create_directory(dir / "mnt");
  const std::string mnt = (dir / "mnt").string();
  const auto r = run_in_namespace(
      dir, "trap 'fusermount3 -u " + mnt + " 2>/dev/null || true' EXIT\n" +
               "mount -t fuse.gguffs " + kAlltypes + " " + mnt + " -o ro,allow_other\n" +
               "grep ' " + mnt + " ' /proc/self/mounts\n" + "cat " + mnt +
               "/metadata/general.architecture; echo\n" + "fusermount3 -u " + mnt + "\n" +
               // What mount(8) passes from typical generic options must be accepted too.
               "mount -t fuse.gguffs " + kAlltypes + " " + mnt +
               " -o ro,noexec,nodev,nosuid,noatime,relatime,noauto,_netdev,nofail,user\n" +
               "ls -U " + mnt + " | head -1\n" + "fusermount3 -u " + mnt + "\n");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // /proc/self/mounts: source, mount point, type fuse.gguffs, read-only, allow_other.
  const std::string source = fsys::canonical(kAlltypes).string();  // mount(8) canonicalizes it
  EXPECT_NE(r.out.find(source + " " + mnt + " fuse.gguffs ro,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("allow_other"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nllama\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nsummary.txt\n"), std::string::npos) << r.out;
  EXPECT_FALSE(mount_test::is_fuse_mount(dir / "mnt"));
}

TEST(MountHelper, FstabLine) {
  REQUIRE_NAMESPACES();
  TempDir dir;
  fsys::create_directory(dir / "mnt");
  const std::string mnt = (dir / "mnt").string();
  test_support::write_file(dir / "fstab", "# a model\n" + kAlltypes + " " + mnt +
                                              " fuse.gguffs ro,allow_other,noauto,nofail 0 0\n");
  const auto r = run_in_namespace(
      dir, "trap 'fusermount3 -u " + mnt + " 2>/dev/null || true' EXIT\n" + "mount -T " +
               (dir / "fstab").string() + " " + mnt + "\n" + "head -c 4 " + mnt +
               "/model.gguf; echo\n" + "umount " + mnt + "\n");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "GGUF\n");
}

TEST(MountHelper, ReadWriteIsRefused) {
  REQUIRE_NAMESPACES();
  TempDir dir;
  fsys::create_directory(dir / "mnt");
  // mount(8) passes "rw" when neither ro nor rw is given.
  const auto r = run_in_namespace(
      dir, "mount -t fuse.gguffs " + kAlltypes + " " + (dir / "mnt").string() + "\n");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
  EXPECT_FALSE(mount_test::is_fuse_mount(dir / "mnt"));
}

TEST(MountHelper, DefaultMountPointIsCreatedAndRemoved) {
  REQUIRE_MOUNT();
  TempDir dir;
  const fsys::path mnt = dir / "alltypes";
  auto r = run("/bin/sh", {"-c", "cd " + dir.path().string() + " && " +
                                     test_support::gguffs_binary().string() + " " + kAlltypes});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(mount_test::is_fuse_mount(mnt));
  EXPECT_TRUE(fsys::exists(mnt / "tensors.tsv"));
  r = run_gguffs({"-u", mnt.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(mount_test::is_fuse_mount(mnt));
  // The daemon removes the folder it made once its session ends.
  for (int i = 0; i < 500 && fsys::exists(mnt); ++i) usleep(10000);
  EXPECT_FALSE(fsys::exists(mnt));

  // An existing empty folder is used and left in place.
  fsys::create_directory(mnt);
  r = run("/bin/sh", {"-c", "cd " + dir.path().string() + " && " +
                                test_support::gguffs_binary().string() + " " + kAlltypes});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(mount_test::is_fuse_mount(mnt));
  ASSERT_TRUE(mount_test::unmount(mnt));
  usleep(100000);
  EXPECT_TRUE(fsys::is_directory(mnt));
}

TEST(MountHelper, DefaultMountPointProblems) {
  TempDir dir;
  test_support::write_file(dir / "model", "x");
  // No extension to strip: the model's own name cannot be the folder.
  auto r = run("/bin/sh", {"-c", "cd " + dir.path().string() + " && " +
                                     test_support::gguffs_binary().string() + " model"});
  EXPECT_EQ(r.exit_code, 8) << r.err;
  // A refused model leaves no folder behind.
  test_support::write_file(dir / "text.gguf", "not a model");
  r = run("/bin/sh", {"-c", "cd " + dir.path().string() + " && " +
                                test_support::gguffs_binary().string() + " text.gguf"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_FALSE(fsys::exists(dir / "text"));
  // -u of something not mounted.
  r = run_gguffs({"-u", dir.path().string()});
  EXPECT_EQ(r.exit_code, 8) << r.err;
}

TEST(ExitCodes, MalformedSplitAndFuseUnavailable) {
  TempDir dir;
  // 6: a metadata pair that does not fit in the file.
  std::string bytes = test_support::small_model_writer().to_bytes();
  test_support::write_file(dir / "cut.gguf", bytes.substr(0, 60));
  auto r = run_gguffs({"check", (dir / "cut.gguf").string()});
  EXPECT_EQ(r.exit_code, 6) << r.err;
  // 7: a split model with a shard missing.
  for (const char* shard : {"split-00001-of-00003.gguf", "split-00002-of-00003.gguf"})
    fsys::copy_file(data_file(std::string("split/") + shard), dir / shard);
  r = run_gguffs({"check", (dir / "split-00001-of-00003.gguf").string()});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("split-00003-of-00003.gguf"), std::string::npos) << r.err;
  // 9: no /dev/fuse (an empty /dev in a private mount namespace).
  if (!can_use_namespaces()) GTEST_SKIP() << "needs root and unshare for the FUSE case";
  fsys::create_directory(dir / "mnt");
  r = run("/usr/bin/unshare",
          {"-m", "--propagation", "private", "/bin/sh", "-c",
           "mount -t tmpfs none /dev && exec " + test_support::gguffs_binary().string() + " " +
               kAlltypes + " " + (dir / "mnt").string()});
  EXPECT_EQ(r.exit_code, 9) << r.err;
  EXPECT_NE(r.err.find("/dev/fuse"), std::string::npos) << r.err;
}

}  // namespace
