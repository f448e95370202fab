// `gguffs MODEL` without a mount point mounts at ./<model file name without .gguf>, as ratarmount
// does: the folder is created when missing and removed again once the mount ends.
#pragma once

#include <string>

namespace gguffs {

// The default mount point of a model path, made absolute (the daemon leaves the working
// directory): "models/llama.gguf" -> "$PWD/llama". Without a ".gguf" suffix the last extension
// goes ("x.bin" -> "x"). Throws MountPointError when no name is left (".gguf", "model").
std::string default_mount_point(const std::string& model);

// Creates path when it does not exist, and removes it on destruction if it created it (rmdir: only
// while empty, that is, once unmounted). An existing folder is left alone.
class AutoMountPoint {
 public:
  explicit AutoMountPoint(std::string path);
  ~AutoMountPoint();
  AutoMountPoint(const AutoMountPoint&) = delete;
  AutoMountPoint& operator=(const AutoMountPoint&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool created_ = false;
};

}  // namespace gguffs
