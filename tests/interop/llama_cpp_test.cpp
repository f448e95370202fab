// llama.cpp itself (node-llama-cpp 3.21.1, its prebuilt CPU build, mmap on) loads the tiny llama
// four ways and must compute exactly the same thing each time: the original file, MNT/model.gguf,
// llama.cpp's own loading of the 3 shards from the first one, and MNT/model.gguf of a mount of
// the middle shard (the merged file gguffs serves).
#include <cmath>

#include <gtest/gtest.h>

#include "tests/interop/interop_support.hpp"
#include "tests/mount/mount_fixture.hpp"

namespace {

using mount_test::MountedModel;

const std::vector<std::string> kRun = {
    "--prompt", "The quick brown fox jumps over", "--tokens", "16", "--embed", "Hello, gguffs!"};

struct Outcome {
  std::string how;
  nlohmann::json result;
};

TEST(LlamaCpp, SameTokensAndEmbeddingFromTheFileTheMountAndTheShards) {
  REQUIRE_MOUNT();
  REQUIRE_TOOL(interop::node_clients_unavailable());
  const auto model = interop::tiny_llama_model();
  const auto shards = interop::tiny_llama_shards();

  std::vector<Outcome> outcomes;
  outcomes.push_back({"the original file", interop::run_llama(model, kRun)});
  {
    MountedModel mnt(model);
    ASSERT_TRUE(mnt.mounted()) << mnt.result().err;
    outcomes.push_back({"MNT/model.gguf", interop::run_llama(mnt / "model.gguf", kRun)});
  }
  outcomes.push_back({"llama.cpp's own split loading", interop::run_llama(shards[0], kRun)});
  {
    MountedModel mnt(shards[1]);
    ASSERT_TRUE(mnt.mounted()) << mnt.result().err;
    outcomes.push_back({"merged MNT/model.gguf", interop::run_llama(mnt / "model.gguf", kRun)});
  }

  const auto& reference = outcomes[0].result;
  ASSERT_TRUE(reference.value("loaded", false)) << reference.dump();
  const auto& tokens = reference["tokens"];
  const auto& embedding = reference["embedding"];
  ASSERT_GE(tokens.size(), 16u);
  ASSERT_EQ(embedding.size(), 256u);  // n_embd
  // A real computation: finite values, not all zero, and not one token repeated from the start.
  double norm = 0;
  for (const auto& v : embedding) {
    ASSERT_TRUE(v.is_number()) << "llama.cpp gave a non-finite embedding value";
    ASSERT_TRUE(std::isfinite(v.get<double>()));
    norm += v.get<double>() * v.get<double>();
  }
  EXPECT_GT(norm, 0.0);
  EXPECT_GT(std::set<int>(tokens.begin(), tokens.end()).size(), 1u);

  for (size_t i = 1; i < outcomes.size(); ++i) {
    SCOPED_TRACE(outcomes[i].how);
    const auto& r = outcomes[i].result;
    ASSERT_TRUE(r.value("loaded", false)) << r.dump();
    EXPECT_EQ(r["tokens"], tokens);
    // Bit-identical: the JSON numbers are the float32 values printed exactly by JavaScript.
    EXPECT_EQ(r["embedding"], embedding);
    EXPECT_EQ(r["trainContextSize"], reference["trainContextSize"]);
  }
}

}  // namespace
