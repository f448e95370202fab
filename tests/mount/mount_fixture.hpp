// Running the real program and mounting with it: each test mounts into its own TempDir and
// unmounts with fusermount3 -u, checking the mount is gone.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

namespace mount_test {

struct RunResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out;
  std::string err;
};

// Runs program with args and waits for it to exit (a daemonizing gguffs returns once mounted).
RunResult run(const std::string& program, const std::vector<std::string>& args);
RunResult run_gguffs(const std::vector<std::string>& args);
// Starts gguffs without waiting (for -f); stdout and stderr go to /dev/null.
pid_t spawn_gguffs(const std::vector<std::string>& args);

// Root with /dev/fuse: mount tests skip themselves otherwise.
bool can_mount();
// True while path is the root of a FUSE mount.
bool is_fuse_mount(const std::filesystem::path& path);
// fusermount3 -u path; true once the mount is gone (waits up to 5 s).
bool unmount(const std::filesystem::path& path);
// Waits up to 5 s for path to become (or stop being) a FUSE mount.
bool wait_for_mount(const std::filesystem::path& path, bool mounted);

// A model mounted with gguffs at a fresh empty folder; unmounted when it goes away.
class MountedModel {
 public:
  explicit MountedModel(const std::filesystem::path& model, std::vector<std::string> options = {});
  ~MountedModel();
  MountedModel(const MountedModel&) = delete;
  MountedModel& operator=(const MountedModel&) = delete;

  const std::filesystem::path& path() const { return mount_point_; }
  std::filesystem::path operator/(const std::string& relative) const {
    return mount_point_ / relative;
  }
  const RunResult& result() const { return result_; }
  bool mounted() const { return mounted_; }
  // Unmounts now; true when the mount went away.
  bool unmount();

 private:
  test_support::TempDir dir_;
  std::filesystem::path mount_point_;
  RunResult result_;
  bool mounted_ = false;
};

}  // namespace mount_test

// Skips the current test when mounting is impossible here.
#define REQUIRE_MOUNT()                                                       \
  do {                                                                        \
    if (!mount_test::can_mount()) GTEST_SKIP() << "needs root and /dev/fuse"; \
  } while (0)
