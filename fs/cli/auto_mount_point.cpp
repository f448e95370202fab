#include "fs/cli/auto_mount_point.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "fs/fuse/mount_point.hpp"

namespace gguffs {

std::string default_mount_point(const std::string& model) {
  const std::filesystem::path file = std::filesystem::path(model).filename();
  std::string name = file.string();
  const std::string suffix = ".gguf";
  if (name.size() > suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    name.resize(name.size() - suffix.size());
  } else {
    const size_t dot = name.rfind('.');
    name = dot == std::string::npos || dot == 0 ? std::string() : name.substr(0, dot);
  }
  if (name.empty() || name == "." || name == "..")
    throw MountPointError(model + ": no mount point given and none can be made from the name");
  return (std::filesystem::current_path() / name).string();
}

AutoMountPoint::AutoMountPoint(std::string path) : path_(std::move(path)) {
  if (mkdir(path_.c_str(), 0755) == 0) {
    created_ = true;
  } else if (errno != EEXIST) {
    throw MountPointError(path_ + ": cannot create the mount point: " + std::strerror(errno));
  }
}

AutoMountPoint::~AutoMountPoint() {
  if (created_) rmdir(path_.c_str());
}

}  // namespace gguffs
