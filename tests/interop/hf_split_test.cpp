// hf/ of a split model: mounting the middle shard of the tiny llama (F32, F16, Q8_0, Q4_K) gives
// the same hf/ as mounting the single file: every hf/*/data, config.json and unmapped.txt.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/interop/interop_support.hpp"
#include "tests/mount/mount_fixture.hpp"
#include "tests/support/test_support.hpp"

namespace {

TEST(HfSplit, TheShardsGiveTheSameHfFilesAsTheSingleFile) {
  REQUIRE_MOUNT();
  mount_test::MountedModel single(interop::tiny_llama_model());
  ASSERT_TRUE(single.mounted()) << single.result().err;
  mount_test::MountedModel split(interop::tiny_llama_shards()[1]);
  ASSERT_TRUE(split.mounted()) << split.result().err;
  size_t compared = 0;
  for (const auto& e : std::filesystem::directory_iterator(single / "hf")) {
    const std::string name = e.path().filename().string();
    if (name == "model.safetensors") continue;  // its header padding follows each file's layout
    const std::string rel = e.is_directory() ? "hf/" + name + "/data" : "hf/" + name;
    EXPECT_TRUE(test_support::read_file(single / rel) == test_support::read_file(split / rel))
        << rel;
    ++compared;
  }
  EXPECT_GT(compared, 20u);
  EXPECT_EQ(test_support::read_file(single / "hf/unmapped.txt"), "");
}

}  // namespace
