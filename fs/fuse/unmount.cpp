#include "fs/fuse/unmount.hpp"

#include <spawn.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

#include "fs/fuse/mount_point.hpp"

extern char** environ;

namespace gguffs {

namespace {

// fusermount3's exit code, or -1 when it cannot be started.
int run_fusermount(const std::string& mount_point) {
  std::string program = "fusermount3", flag = "-u", path = mount_point;
  char* argv[] = {program.data(), flag.data(), path.data(), nullptr};
  pid_t pid;
  if (posix_spawnp(&pid, program.c_str(), nullptr, nullptr, argv, environ) != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

void unmount_mount_point(const std::string& mount_point) {
  const int code = run_fusermount(mount_point);
  if (code == 0) return;
  if (code < 0) {
    if (umount2(mount_point.c_str(), 0) == 0) return;
    throw MountPointError(mount_point + ": cannot unmount: " + std::strerror(errno));
  }
  // fusermount3 said why on stderr.
  throw MountPointError(mount_point + ": cannot unmount");
}

}  // namespace gguffs
