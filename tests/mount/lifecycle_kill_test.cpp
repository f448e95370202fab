// A daemon that dies without unmounting (SIGKILL, the OOM killer) leaves a dead mount: every
// access fails with ENOTCONN ("Transport endpoint is not connected"). gguffs says so when asked
// to mount there, `fusermount3 -u` clears it, and the folder can be mounted again.
// (SIGINT and SIGTERM are in cli_test.cpp.)
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "tests/mount/mount_fixture.hpp"

namespace {

namespace fsys = std::filesystem;

TEST(Lifecycle, SigkillLeavesADeadMountThatFusermountClears) {
  REQUIRE_MOUNT();
  const std::string model = test_support::data_file("alltypes/alltypes.gguf").string();
  test_support::TempDir dir;
  const fsys::path mnt = dir / "mnt";
  fsys::create_directory(mnt);

  const pid_t pid = mount_test::spawn_gguffs({"-f", model, mnt.string()});
  ASSERT_TRUE(mount_test::wait_for_mount(mnt, true));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);

  // What `ls` says: the kernel may still answer stat from its cache, but not a listing.
  DIR* listing = opendir(mnt.c_str());
  EXPECT_EQ(listing, nullptr);
  EXPECT_EQ(errno, ENOTCONN);
  if (listing) closedir(listing);
  EXPECT_STREQ(std::strerror(ENOTCONN), "Transport endpoint is not connected");

  // Mounting there again is refused with the way out.
  auto r = mount_test::run_gguffs({model, mnt.string()});
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("disconnected FUSE mount (run: fusermount3 -u"), std::string::npos) << r.err;

  r = mount_test::run("/usr/bin/fusermount3", {"-u", mnt.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  struct stat st;
  ASSERT_EQ(stat(mnt.c_str(), &st), 0) << std::strerror(errno);
  EXPECT_TRUE(S_ISDIR(st.st_mode));

  r = mount_test::run_gguffs({model, mnt.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fsys::exists(mnt / "summary.txt"));
  EXPECT_TRUE(mount_test::unmount(mnt));
}

TEST(Lifecycle, SighupUnmountsCleanly) {
  REQUIRE_MOUNT();
  test_support::TempDir dir;
  const pid_t pid = mount_test::spawn_gguffs(
      {"-f", test_support::data_file("alltypes/alltypes.gguf").string(), dir.path().string()});
  ASSERT_TRUE(mount_test::wait_for_mount(dir.path(), true));
  ASSERT_EQ(kill(pid, SIGHUP), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_FALSE(mount_test::is_fuse_mount(dir.path()));
}

}  // namespace
