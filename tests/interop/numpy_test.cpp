// numpy (Debian's python3-numpy) maps every data.npy of the all-types fixture and gets the values
// of data.f32 in the shape that info gives (tests/interop/npy_matches_f32.py).
#include <gtest/gtest.h>

#include "tests/interop/interop_support.hpp"
#include "tests/mount/mount_fixture.hpp"
#include "tests/support/test_support.hpp"

namespace {

TEST(Numpy, LoadsEveryAlltypesTensorsNpyAsItsF32Values) {
  REQUIRE_MOUNT();
  REQUIRE_TOOL(interop::numpy_unavailable());
  mount_test::MountedModel mnt(test_support::data_file("alltypes/alltypes.gguf"));
  ASSERT_TRUE(mnt.mounted()) << mnt.result().err;
  const auto r = mount_test::run(
      interop::debian_python(),
      {std::string(GGUFFS_INTEROP_DIR) + "/npy_matches_f32.py", mnt.path().string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // Every tensor of ggml's manifest has a data.npy (each of its types decodes).
  const auto tensors = test_support::alltypes_manifest().size();
  EXPECT_NE(r.out.find("checked " + std::to_string(tensors) + " tensors"), std::string::npos)
      << r.out;
}

}  // namespace
