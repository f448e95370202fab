// The pieces of remote models that need no server: hf:// URLs as huggingface_hub builds them,
// URL origins (where the token may go), the token's sources, sizes and options on the command
// line, the shard naming rule on URLs, and the block cache's single flight and eviction.
#include <gtest/gtest.h>

#include <cstdlib>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "fs/cli/cli.hpp"
#include "gguf/errors.hpp"
#include "gguf/source/block_cache.hpp"
#include "gguf/source/hf_token.hpp"
#include "gguf/source/prefetcher.hpp"
#include "gguf/source/remote_url.hpp"
#include "gguf/split.hpp"
#include "tests/support/test_support.hpp"

namespace {

using test_support::EnvGuard;

TEST(RemoteUrl, HfLocationsExpandAsHuggingfaceHubBuildsThem) {
  EXPECT_EQ(gguf::resolve_location("hf://owner/repo/model.gguf", ""),
            "https://huggingface.co/owner/repo/resolve/main/model.gguf");
  EXPECT_EQ(gguf::resolve_location("hf://o/r/sub/dir/m.gguf@v1.0", ""),
            "https://huggingface.co/o/r/resolve/v1.0/sub/dir/m.gguf");
  EXPECT_EQ(gguf::resolve_location("hf://o/r/m.gguf@refs/pr/1", ""),
            "https://huggingface.co/o/r/resolve/refs%2Fpr%2F1/m.gguf");
  EXPECT_EQ(gguf::resolve_location("hf://o/r/m.gguf", "http://127.0.0.1:8080/"),
            "http://127.0.0.1:8080/o/r/resolve/main/m.gguf");
  EXPECT_EQ(gguf::resolve_location("https://host/a/m.gguf?x=1", ""), "https://host/a/m.gguf?x=1");
}

TEST(RemoteUrl, BadHfLocationsAreRefusedWithTheRemoteKind) {
  for (const char* bad : {"hf://owner/repo", "hf://owner//m.gguf", "hf:///r/m.gguf",
                          "hf://o/r/m.gguf@", "hf://o/r/"}) {
    try {
      gguf::resolve_location(bad, "");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const gguf::FormatError& e) {
      EXPECT_EQ(e.kind(), gguf::FormatError::Kind::remote_unusable) << bad;
    }
  }
}

TEST(RemoteUrl, RemoteLocationsAreTellableFromPaths) {
  EXPECT_TRUE(gguf::is_remote_location("https://h/m.gguf"));
  EXPECT_TRUE(gguf::is_remote_location("http://h/m.gguf"));
  EXPECT_TRUE(gguf::is_remote_location("hf://o/r/m.gguf"));
  EXPECT_FALSE(gguf::is_remote_location("models/https.gguf"));
  EXPECT_FALSE(gguf::is_remote_location("ftp://h/m.gguf"));
}

TEST(RemoteUrl, OriginsCompareSchemeHostAndPort) {
  const auto a = gguf::url_origin("https://HuggingFace.co/o/r/resolve/main/m.gguf");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->scheme, "https");
  EXPECT_EQ(a->host, "huggingface.co");
  EXPECT_EQ(a->port, "443");
  EXPECT_EQ(*a, *gguf::url_origin("https://huggingface.co:443/"));
  EXPECT_FALSE(*a == *gguf::url_origin("https://cdn-lfs.huggingface.co/x"));
  EXPECT_FALSE(*a == *gguf::url_origin("http://huggingface.co/x"));
  EXPECT_EQ(gguf::url_origin("http://127.0.0.1:8080/x")->port, "8080");
  EXPECT_EQ(gguf::url_path("https://h/a/m-00001-of-00002.gguf?sig=1#f"),
            "/a/m-00001-of-00002.gguf");
}

TEST(RemoteUrl, ShardsOfAUrlFollowTheNamingRule) {
  const auto name = gguf::parse_shard_name("https://h/o/r/resolve/main/m-00002-of-00003.gguf");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->number, 2u);
  EXPECT_EQ(gguf::shard_path(name->prefix, 3, name->count),
            "https://h/o/r/resolve/main/m-00003-of-00003.gguf");
}

TEST(HfToken, ComesFromTheEnvironmentThenTheTokenFile) {
  test_support::TempDir home;
  EnvGuard path("HF_TOKEN_PATH", std::nullopt);
  EnvGuard hf_home("HF_HOME", home.path().string());
  {
    EnvGuard token("HF_TOKEN", " hf_from_env \n");
    const auto t = gguf::find_hf_token();
    ASSERT_TRUE(t);
    EXPECT_EQ(t->value, "hf_from_env");
    EXPECT_EQ(t->origin, "HF_TOKEN");
  }
  EnvGuard token("HF_TOKEN", std::nullopt);
  EXPECT_FALSE(gguf::find_hf_token());
  test_support::write_file(home / "token", "hf_from_file\n");
  const auto t = gguf::find_hf_token();
  ASSERT_TRUE(t);
  EXPECT_EQ(t->value, "hf_from_file");
  EXPECT_EQ(t->origin, (home / "token").string());
  test_support::write_file(home / "other", "hf_other\n");
  EnvGuard other("HF_TOKEN_PATH", (home / "other").string());
  EXPECT_EQ(gguf::find_hf_token()->value, "hf_other");
  test_support::write_file(home / "other", "  \n");
  EXPECT_FALSE(gguf::find_hf_token());
}

TEST(RemoteOptions, SizesAndOptionsLeaveTheFuseList) {
  EXPECT_EQ(gguffs::parse_size("256M"), uint64_t{256} << 20);
  EXPECT_EQ(gguffs::parse_size("2G"), uint64_t{2} << 30);
  EXPECT_EQ(gguffs::parse_size("4096"), 4096u);
  EXPECT_THROW(gguffs::parse_size("12X"), gguffs::UsageError);
  EXPECT_THROW(gguffs::parse_size("M"), gguffs::UsageError);
  const auto cl = gguffs::parse_command_line(
      {"-o", "cacert=/ca.pem,cache_size=64M,allow_other,cache_dir=/c", "hf://o/r/m.gguf", "mnt"});
  EXPECT_EQ(cl.cacert, "/ca.pem");
  EXPECT_EQ(cl.cache_size, uint64_t{64} << 20);
  EXPECT_EQ(cl.cache_dir, "/c");
  EXPECT_EQ(cl.mount_options, std::vector<std::string>{"allow_other"});
  EXPECT_EQ(cl.model, "hf://o/r/m.gguf");
}

TEST(BlockCache, OneFetchPerBlockAndWaitersGetItsResult) {
  gguf::BlockCache cache(16 << 20, 1 << 20);
  EXPECT_EQ(cache.claim({0, 1}), (std::vector<uint64_t>{0, 1}));
  EXPECT_TRUE(cache.claim({0, 1, 2}) == std::vector<uint64_t>{2});  // 0 and 1 are in flight
  std::thread filler([&] {
    cache.fill(0, std::make_shared<gguf::BlockBytes>(3, 7));
    try {
      throw std::runtime_error("network down");
    } catch (...) {
      cache.fail(1, std::current_exception());
    }
  });
  const auto data = cache.wait(0);
  ASSERT_TRUE(data);
  EXPECT_EQ(*data, (gguf::BlockBytes{7, 7, 7}));
  EXPECT_THROW(cache.wait(1), std::runtime_error);
  filler.join();
  EXPECT_TRUE(cache.ready(0));
  EXPECT_FALSE(cache.ready(1));
  EXPECT_EQ(cache.claim({1}), std::vector<uint64_t>{1});  // a failed block is tried again
  EXPECT_EQ(cache.wait(7), nullptr);                      // never claimed
}

TEST(BlockCache, DropsTheLeastRecentlyUsedBlock) {
  gguf::BlockCache cache(4 << 20, 1 << 20);
  ASSERT_EQ(cache.capacity_blocks(), 4u);
  for (uint64_t i = 0; i < 4; ++i) {
    cache.claim({i});
    cache.fill(i, std::make_shared<gguf::BlockBytes>(1, static_cast<uint8_t>(i)));
  }
  cache.wait(0);  // 0 is now more recent than 1
  cache.claim({4});
  cache.fill(4, std::make_shared<gguf::BlockBytes>(1, 4));
  EXPECT_TRUE(cache.ready(0));
  EXPECT_FALSE(cache.ready(1));
  EXPECT_TRUE(cache.ready(4));
}

TEST(BlockCache, BlocksReadPastStayOnlyInTheRing) {
  gguf::BlockCache cache(64 << 20, 1 << 20, /*ring_blocks=*/2);
  for (uint64_t i = 0; i < 5; ++i) {
    cache.claim({i});
    cache.fill(i, std::make_shared<gguf::BlockBytes>(1, static_cast<uint8_t>(i)));
  }
  // A sequential reader passes 0, 1 and 2: the ring keeps the last two, though the cache has
  // room for 64.
  cache.passed(0);
  cache.passed(1);
  EXPECT_TRUE(cache.ready(0));
  cache.passed(2);
  EXPECT_FALSE(cache.ready(0));
  EXPECT_TRUE(cache.ready(1));
  EXPECT_TRUE(cache.ready(2));
  // Block 1 is read again: it leaves the ring and stays when more blocks are passed.
  ASSERT_TRUE(cache.wait(1));
  cache.passed(3);
  cache.passed(4);
  EXPECT_TRUE(cache.ready(1));
  EXPECT_FALSE(cache.ready(2));
  EXPECT_TRUE(cache.ready(3));
  EXPECT_TRUE(cache.ready(4));
  // Blocks not passed are untouched, and a dropped block is fetched again when claimed.
  EXPECT_EQ(cache.claim({0, 1}), std::vector<uint64_t>{0});
}

}  // namespace

namespace {

TEST(Prefetcher, RunsJobsOnOtherThreads) {
  gguf::Prefetcher prefetcher(4);
  std::vector<std::promise<std::thread::id>> done(16);
  for (auto& p : done)
    ASSERT_TRUE(prefetcher.submit([&p] { p.set_value(std::this_thread::get_id()); }));
  for (auto& p : done) {
    auto f = p.get_future();
    EXPECT_NE(f.get(), std::this_thread::get_id());
  }
}

}  // namespace
