// Remote models against tests/remote/fault_server.py: latency, a server without Range support, a
// wrong Content-Range, a truncated body, 503 twice then success, a slow drip, the file replaced
// during a mount, redirect chains, tokens (401/403, sent only to the Hub's host), 404 and a file
// that is not GGUF. Each case checks what the user sees (data, errno, message, exit code) and
// that a mount stays alive afterwards. Faults start at byte 1 MiB (--fault-from) unless the case
// is about opening, so the mount itself succeeds and the tensor read meets the fault.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "fs/cli/exit_codes.hpp"
#include "gguf/writer.hpp"
#include "tests/mount/mount_fixture.hpp"
#include "tests/mount/remote_servers.hpp"

namespace {

using test_support::EnvGuard;

namespace fsys = std::filesystem;
using mount_test::MountedModel;
using mount_test::run_gguffs;
using remote_test::FaultServer;
using test_support::read_file;
using test_support::TempDir;

constexpr uint64_t kMiB = 1 << 20;
const std::string kTensor = "tensors/big.weight/data";

// big.gguf: one F32 tensor of 6 MiB of known bytes (computed here, not read back from gguffs).
class Root {
 public:
  Root() {
    data_.resize(6 * kMiB);
    for (size_t i = 0; i < data_.size(); ++i) data_[i] = static_cast<char>((i * 2654435761u) >> 13);
    gguf::Writer w;
    w.add("general.architecture", gguf::OwnedValue::string("llama"));
    w.add_tensor("big.weight", {data_.size() / 4}, gguf::type_id::F32, data_);
    w.write_file((dir_ / "big.gguf").string());
    test_support::write_file(dir_ / "notes.txt", "these are not the weights you are looking for\n");
  }
  const fsys::path& path() const { return dir_.path(); }
  const std::string& data() const { return data_; }

 private:
  TempDir dir_;
  std::string data_;
};

// pread of size bytes at offset: 0 and the bytes, or the errno.
int pread_errno(const fsys::path& path, uint64_t offset, size_t size, std::string* out = nullptr) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return errno;
  std::string buf(size, '\0');
  const ssize_t n = pread(fd, buf.data(), size, static_cast<off_t>(offset));
  const int err = n < 0 ? errno : 0;
  close(fd);
  if (out && n >= 0) *out = buf.substr(0, static_cast<size_t>(n));
  return err;
}

// The mount still answers: a metadata file reads and the first MiB of the tensor (cached) is right.
void expect_alive(const MountedModel& m, const Root& root) {
  EXPECT_TRUE(mount_test::is_fuse_mount(m.path()));
  EXPECT_EQ(read_file(m / "metadata/general.architecture"), "llama");
  std::string head;
  EXPECT_EQ(pread_errno(m / kTensor, 0, 4096, &head), 0);
  EXPECT_TRUE(head == root.data().substr(0, 4096));
}

size_t count_lines(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

size_t count_requests(const FaultServer& s, const std::string& needle) {
  size_t n = 0;
  for (const std::string& line : s.requests()) n += line.find(needle) != std::string::npos;
  return n;
}

#define REQUIRE_SERVER()                                              \
  do {                                                                \
    REQUIRE_MOUNT();                                                  \
    if (!remote_test::have_python()) GTEST_SKIP() << "needs python3"; \
  } while (0)

class RemoteFaults : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_SERVER(); }
  // One-line message on stderr, the given exit code, nothing mounted.
  void expect_refused(const std::string& url, int code, const std::string& message) {
    TempDir mnt;
    const auto r = run_gguffs({url, mnt.path().string()});
    EXPECT_EQ(r.exit_code, code) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(mount_test::is_fuse_mount(mnt.path()));
  }
  Root root_;
};

TEST_F(RemoteFaults, LatencyStillGivesTheBytes) {
  FaultServer s(root_.path(), {"--latency", "50"});
  ASSERT_TRUE(s.running());
  MountedModel m(s.url("big.gguf"));
  ASSERT_EQ(m.result().exit_code, 0) << m.result().err;
  EXPECT_TRUE(read_file(m / kTensor) == root_.data());
  expect_alive(m, root_);
}

TEST_F(RemoteFaults, ServerWithoutRangeSupportIsRefusedAtMount) {
  FaultServer s(root_.path(), {"--fault", "norange"});
  expect_refused(s.url("big.gguf"), gguffs::kExitRemoteUnusable, "ignores Range requests");
}

TEST_F(RemoteFaults, WrongContentRangeFailsTheReadNotTheDaemon) {
  FaultServer s(root_.path(), {"--fault", "badrange", "--fault-from", std::to_string(kMiB)});
  MountedModel m(s.url("big.gguf"));
  ASSERT_EQ(m.result().exit_code, 0) << m.result().err;
  EXPECT_EQ(pread_errno(m / kTensor, 2 * kMiB, 4096), EIO);
  expect_alive(m, root_);
  const auto cat = run_gguffs({"cat", s.url("big.gguf"), kTensor});
  EXPECT_EQ(cat.exit_code, gguffs::kExitRemoteUnusable);
  EXPECT_NE(cat.err.find("Content-Range"), std::string::npos) << cat.err;
}

TEST_F(RemoteFaults, TruncatedBodyIsRetriedThenEio) {
  FaultServer s(root_.path(), {"--fault", "truncate", "--fault-from", std::to_string(kMiB)});
  MountedModel m(s.url("big.gguf"));
  ASSERT_EQ(m.result().exit_code, 0) << m.result().err;
  EXPECT_EQ(pread_errno(m / kTensor, 3 * kMiB, 4096), EIO);
  expect_alive(m, root_);
  // Three tries of the range that holds byte 3 MiB of the tensor.
  EXPECT_GE(count_requests(s, "\"status\": 206") - 1, 3u);
  const auto cat = run_gguffs({"cat", s.url("big.gguf"), kTensor});
  EXPECT_EQ(cat.exit_code, gguffs::kExitRemoteUnusable);
  EXPECT_NE(cat.err.find("3 tries"), std::string::npos) << cat.err;
}

TEST_F(RemoteFaults, Two503sThenSuccessGivesTheBytes) {
  FaultServer s(root_.path(), {"--fault", "flaky", "--fault-from", std::to_string(kMiB)});
  MountedModel m(s.url("big.gguf"));
  ASSERT_EQ(m.result().exit_code, 0) << m.result().err;
  EXPECT_TRUE(read_file(m / kTensor) == root_.data());
  EXPECT_EQ(count_requests(s, "\"status\": 503"), 2u);
  expect_alive(m, root_);
}

TEST_F(RemoteFaults, SlowDripIsAbortedWithEio) {
  // 100 bytes a second is under the 1 KB/s floor; wait 1 s for it instead of 30.
  EnvGuard fast("GGUFFS_LOW_SPEED_TIME", "1");
  FaultServer s(root_.path(), {"--fault", "drip", "--fault-from", std::to_string(kMiB)});
  MountedModel m(s.url("big.gguf"));
  ASSERT_EQ(m.result().exit_code, 0) << m.result().err;
  EXPECT_EQ(pread_errno(m / kTensor, 2 * kMiB, 4096), EIO);
  expect_alive(m, root_);
}

TEST_F(RemoteFaults, FileReplacedDuringTheMountGivesEioNeverNewBytes) {
  // Request 1 (the first MiB) sees the old file; every later one the new (another ETag).
  FaultServer s(root_.path(), {"--fault", "change-after=1"});
  MountedModel m(s.url("big.gguf"));
  ASSERT_EQ(m.result().exit_code, 0) << m.result().err;
  EXPECT_EQ(pread_errno(m / kTensor, 2 * kMiB, 4096), EIO);
  EXPECT_EQ(pread_errno(m / kTensor, 4 * kMiB, 4096), EIO);
  EXPECT_TRUE(mount_test::is_fuse_mount(m.path()));
  EXPECT_EQ(read_file(m / "metadata/general.architecture"), "llama");
  // Every request after the first carried the old ETag as If-Range.
  for (const std::string& line : s.requests()) {
    if (line.find("\"n\": 1,") == std::string::npos) {
      EXPECT_NE(line.find("\"if_range\": \"\\\"600"), std::string::npos) << line;
    }
  }
  // Without a mount: one warning, then the error.
  FaultServer again(root_.path(), {"--fault", "change-after=1"});
  const auto cat = run_gguffs({"cat", again.url("big.gguf"), kTensor});
  EXPECT_EQ(cat.exit_code, gguffs::kExitIo);
  EXPECT_EQ(count_lines(cat.err, "warning:"), 1u) << cat.err;
  EXPECT_NE(cat.err.find("changed on the server"), std::string::npos) << cat.err;
}

TEST_F(RemoteFaults, RedirectChainsAreFollowedUpToTen) {
  FaultServer s(root_.path(), {});
  MountedModel m(s.url("redirect/9/big.gguf"));  // 10 redirects
  ASSERT_EQ(m.result().exit_code, 0) << m.result().err;
  EXPECT_TRUE(read_file(m / kTensor) == root_.data());
  expect_alive(m, root_);
  expect_refused(s.url("redirect/10/big.gguf"), gguffs::kExitRemoteUnusable,
                 "more than 10 redirects");
}

TEST_F(RemoteFaults, NotFoundAndDeniedAndNotGguf) {
  FaultServer s(root_.path(), {});
  EnvGuard no_token("HF_TOKEN", std::nullopt);
  TempDir home;
  EnvGuard no_file("HF_HOME", home.path().string());
  expect_refused(s.url("missing.gguf"), gguffs::kExitRemoteNotFound, "not found (HTTP 404)");
  expect_refused(s.url("status/403/big.gguf"), gguffs::kExitRemoteDenied,
                 "access denied (HTTP 403); no token was sent");
  expect_refused(s.url("status/401/big.gguf"), gguffs::kExitRemoteDenied, "HTTP 401");
  expect_refused(s.url("notes.txt"), gguffs::kExitNotGguf, "notes.txt");
  expect_refused(s.url("status/500/big.gguf"), gguffs::kExitRemoteUnusable, "3 tries");
}

TEST_F(RemoteFaults, TokenGoesOnlyToTheHubsHostAndIsNeverPrinted) {
  const std::string secret = "hf_sekrit_value_123";
  FaultServer s(root_.path(), {"--token", secret});
  EnvGuard endpoint("HF_ENDPOINT", "http://127.0.0.1:" + std::to_string(s.port()));
  TempDir home;
  EnvGuard no_file("HF_HOME", home.path().string());
  {
    EnvGuard none("HF_TOKEN", std::nullopt);
    expect_refused("hf://owner/repo/big.gguf", gguffs::kExitRemoteDenied,
                   "HTTP 401); no token was sent");
  }
  {
    EnvGuard wrong("HF_TOKEN", "hf_wrong_token_456");
    TempDir mnt;
    const auto r = run_gguffs({"-v", "hf://owner/repo/big.gguf", mnt.path().string()});
    EXPECT_EQ(r.exit_code, gguffs::kExitRemoteDenied);
    EXPECT_NE(r.err.find("HTTP 403); a token was sent (from HF_TOKEN)"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("hf_wrong_token_456"), std::string::npos) << r.err;
  }
  {
    // From $HF_HOME/token, as huggingface-cli login leaves it.
    EnvGuard none("HF_TOKEN", std::nullopt);
    test_support::write_file(home / "token", secret + "\n");
    MountedModel m("hf://owner/repo/big.gguf@main", {"-v"});
    ASSERT_EQ(m.result().exit_code, 0) << m.result().err;
    EXPECT_TRUE(read_file(m / kTensor) == root_.data());
    EXPECT_EQ(m.result().err.find(secret), std::string::npos);
    EXPECT_EQ(m.result().out.find(secret), std::string::npos);
  }
  // A redirect to another host ("localhost", this same server) does not take the token along.
  EnvGuard token("HF_TOKEN", secret);
  const auto r = run_gguffs({"summary", s.url("other-host/big.gguf")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  size_t to_hub = 0, to_other = 0;
  for (const std::string& line : s.requests()) {
    if (line.find("\"host\": \"localhost") != std::string::npos) {
      ++to_other;
      EXPECT_NE(line.find("\"auth\": false"), std::string::npos) << line;
    } else if (line.find("other-host") != std::string::npos) {
      ++to_hub;
      EXPECT_NE(line.find("\"auth\": true"), std::string::npos) << line;
    }
  }
  EXPECT_GE(to_hub, 1u);
  EXPECT_GE(to_other, 1u);
}

TEST_F(RemoteFaults, SigtermWithRequestsInFlightUnmountsCleanly) {
  FaultServer s(root_.path(), {"--latency", "1500"});
  TempDir mnt;
  const pid_t pid = mount_test::spawn_gguffs({"-f", s.url("big.gguf"), mnt.path().string()});
  ASSERT_TRUE(mount_test::wait_for_mount(mnt.path(), true));
  std::thread reader([&] { pread_errno(mnt / kTensor, 4 * kMiB, 4096); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the request is in flight
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  reader.join();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(mount_test::wait_for_mount(mnt.path(), false));
}

}  // namespace
