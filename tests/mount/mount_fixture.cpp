#include "tests/mount/mount_fixture.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace mount_test {

namespace {

constexpr long kFuseSuperMagic = 0x65735546;

pid_t spawn(const std::string& program, const std::vector<std::string>& args,
            const std::string& out_path, const std::string& err_path) {
  std::vector<std::string> all = {program};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + program);
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

RunResult run(const std::string& program, const std::vector<std::string>& args) {
  test_support::TempDir logs;
  const std::string out = (logs / "out").string(), err = (logs / "err").string();
  RunResult r;
  r.exit_code = wait_exit_code(spawn(program, args, out, err));
  r.out = test_support::read_file(out);
  r.err = test_support::read_file(err);
  return r;
}

RunResult run_gguffs(const std::vector<std::string>& args) {
  return run(test_support::gguffs_binary().string(), args);
}

pid_t spawn_gguffs(const std::vector<std::string>& args) {
  return spawn(test_support::gguffs_binary().string(), args, "/dev/null", "/dev/null");
}

bool can_mount() {
  return geteuid() == 0 && access("/dev/fuse", R_OK | W_OK) == 0;
}

bool is_fuse_mount(const std::filesystem::path& path) {
  struct statfs s;
  if (statfs(path.c_str(), &s) != 0) return false;
  if (s.f_type != kFuseSuperMagic) return false;
  // The folder itself, not something below a FUSE mount: compare with its parent's device.
  struct stat self, parent;
  if (::stat(path.c_str(), &self) != 0 || ::stat((path / "..").c_str(), &parent) != 0) return false;
  return self.st_dev != parent.st_dev;
}

bool wait_for_mount(const std::filesystem::path& path, bool mounted) {
  for (int i = 0; i < 500; ++i) {
    if (is_fuse_mount(path) == mounted) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

bool unmount(const std::filesystem::path& path) {
  run("/usr/bin/fusermount3", {"-u", path.string()});
  return wait_for_mount(path, false);
}

MountedModel::MountedModel(const std::filesystem::path& model, std::vector<std::string> options)
    : mount_point_(dir_ / "mnt") {
  std::filesystem::create_directory(mount_point_);
  options.push_back(model.string());
  options.push_back(mount_point_.string());
  result_ = run_gguffs(options);
  // The program returns only once the mount is ready: no waiting here.
  mounted_ = is_fuse_mount(mount_point_);
}

bool MountedModel::unmount() {
  if (!mounted_) return true;
  mounted_ = !mount_test::unmount(mount_point_);
  return !mounted_;
}

MountedModel::~MountedModel() {
  unmount();
}

}  // namespace mount_test
