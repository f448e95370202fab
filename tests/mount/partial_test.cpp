// A truncated download: the model loads, complete tensors read normally, and reading bytes the
// file lacks fails with EIO instead of returning short or invented data.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "tests/mount/mount_fixture.hpp"

namespace {

TEST(PartialModel, MissingTensorBytesAreAnIoError) {
  REQUIRE_MOUNT();
  test_support::TempDir dir;
  const std::string whole =
      test_support::read_file(test_support::data_file("alltypes/alltypes.gguf"));
  // Cut inside rank4.weight (data at 5280 + 460128, 768 bytes): it and every later tensor lose
  // bytes; output.weight (5280 + 449056, 6720 bytes) stays whole.
  const size_t cut = 466000;
  test_support::write_file(dir / "cut.gguf", whole.substr(0, cut));

  const auto check = mount_test::run_gguffs({"check", (dir / "cut.gguf").string()});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("rank4.weight"), std::string::npos) << check.out;

  mount_test::MountedModel m(dir / "cut.gguf");
  ASSERT_TRUE(m.mounted()) << m.result().err;
  EXPECT_TRUE(test_support::read_file(m / "tensors/output.weight/data") ==
              whole.substr(5280 + 449056, 6720));
  EXPECT_EQ(test_support::read_file(m / "model.gguf").size(), cut);

  for (const char* name : {"tensors/rank4.weight/data", "tensors/100%25/data"}) {
    const int fd = open((m / name).c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0) << name;
    char buf[1024];
    EXPECT_EQ(read(fd, buf, sizeof buf), -1) << name;
    EXPECT_EQ(errno, EIO) << name;
    close(fd);
  }
  EXPECT_TRUE(m.unmount());
}

}  // namespace
