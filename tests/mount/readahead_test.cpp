// The daemon raises its mount's read-ahead to one full request (512 KiB) once init is done, so
// a first sequential read makes a quarter of the round trips (fs/readahead.hpp).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <string>

#include "tests/mount/mount_fixture.hpp"

namespace {

TEST(Readahead, MountReadsAheadOneFullRequest) {
  REQUIRE_MOUNT();
  mount_test::MountedModel m(test_support::data_file("alltypes/alltypes.gguf"));
  ASSERT_TRUE(m.mounted()) << m.result().err;
  struct stat st {};
  ASSERT_EQ(stat(m.path().c_str(), &st), 0);  // the first request after init applies it
  const std::string knob = "/sys/class/bdi/" + std::to_string(major(st.st_dev)) + ":" +
                           std::to_string(minor(st.st_dev)) + "/read_ahead_kb";
  std::ifstream in(knob);
  ASSERT_TRUE(in) << knob;
  unsigned kib = 0;
  in >> kib;
  EXPECT_EQ(kib, 512u);  // the kernel's own default for FUSE is 128
}

}  // namespace
