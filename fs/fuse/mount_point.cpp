#include "fs/fuse/mount_point.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace gguffs {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw MountPointError(path + ": " + why);
}

bool is_empty_directory(const std::string& path) {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(path.c_str()), closedir);
  if (!dir) refuse(path, std::strerror(errno));
  while (const dirent* e = readdir(dir.get())) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) return false;
  }
  return true;
}

}  // namespace

void check_mount_point(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) refuse(path, "mount point does not exist");
    if (errno == ENOTCONN)
      refuse(path, "mount point is a disconnected FUSE mount (run: fusermount3 -u " + path + ")");
    refuse(path, std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) refuse(path, "mount point is not a directory");
  // A mount point lives on another device than its parent, or is its own parent ("/").
  struct stat parent;
  if (stat((path + "/..").c_str(), &parent) == 0 &&
      (parent.st_dev != st.st_dev || parent.st_ino == st.st_ino)) {
    // A FUSE daemon that was killed leaves its mount behind; stat may still answer from the
    // kernel's attribute cache, but listing it fails with ENOTCONN.
    std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(path.c_str()), closedir);
    if (!dir && errno == ENOTCONN)
      refuse(path, "mount point is a disconnected FUSE mount (run: fusermount3 -u " + path + ")");
    refuse(path, "already a mount point");
  }
  if (!is_empty_directory(path)) refuse(path, "mount point is not empty");
}

}  // namespace gguffs
