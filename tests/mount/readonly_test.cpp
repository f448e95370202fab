// Every way of writing to the mount fails with EROFS.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "tests/mount/mount_fixture.hpp"

namespace {

using mount_test::MountedModel;

TEST(ReadOnlyMount, EveryWriteFailsWithErofs) {
  REQUIRE_MOUNT();
  MountedModel m(test_support::data_file("alltypes/alltypes.gguf"));
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const std::string file = (m / "summary.txt").string();
  const std::string data = (m / "tensors/types.f32.weight/data").string();
  const std::string dir = (m / "tensors/types.f32.weight").string();

  auto expect_erofs = [](int rc, const char* what) {
    EXPECT_EQ(rc, -1) << what;
    EXPECT_EQ(errno, EROFS) << what;
  };
  int fd = open(file.c_str(), O_WRONLY);
  expect_erofs(fd, "open O_WRONLY");
  if (fd >= 0) close(fd);
  fd = open(data.c_str(), O_RDWR);
  expect_erofs(fd, "open O_RDWR");
  if (fd >= 0) close(fd);
  fd = open((m / "new").c_str(), O_WRONLY | O_CREAT, 0644);
  expect_erofs(fd, "create");
  if (fd >= 0) close(fd);
  expect_erofs(mkdir((m / "newdir").c_str(), 0755), "mkdir");
  expect_erofs(unlink(file.c_str()), "unlink");
  expect_erofs(rmdir(dir.c_str()), "rmdir");
  expect_erofs(rename(file.c_str(), (m / "renamed").c_str()), "rename");
  expect_erofs(chmod(file.c_str(), 0644), "chmod");
  expect_erofs(chown(file.c_str(), 1, 1), "chown");
  expect_erofs(truncate(data.c_str(), 0), "truncate");
  expect_erofs(symlink("x", (m / "link").c_str()), "symlink");
  expect_erofs(link(file.c_str(), (m / "hard").c_str()), "link");
  expect_erofs(setxattr(file.c_str(), "user.x", "1", 1, 0), "setxattr");
  expect_erofs(removexattr(file.c_str(), "user.x"), "removexattr");

  // Reading still works, and there are no extended attributes yet.
  char buf[8];
  EXPECT_EQ(getxattr(file.c_str(), "user.x", buf, sizeof buf), -1);
  EXPECT_EQ(errno, ENODATA);
  EXPECT_EQ(listxattr(file.c_str(), buf, sizeof buf), 0);
  EXPECT_TRUE(m.unmount());
}

}  // namespace
