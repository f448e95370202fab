// Checks a mount point before mounting, so a mistake gets a clear one-line message instead of
// libfuse's.
#pragma once

#include <stdexcept>
#include <string>

namespace gguffs {

// The mount point cannot be used; exits with kExitMountPoint.
class MountPointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws MountPointError when path is missing, not a directory, already a mount point or not
// empty. The message names the path.
void check_mount_point(const std::string& path);

}  // namespace gguffs
