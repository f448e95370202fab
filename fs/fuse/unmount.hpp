// `gguffs -u MOUNTPOINT`: unmount, as fusermount3 -u does (a user may unmount their own mount).
#pragma once

#include <string>

namespace gguffs {

// Runs fusermount3 -u (found on PATH); when it cannot be run, falls back to umount2(2), which
// needs root. Throws MountPointError when the mount point is not unmounted.
void unmount_mount_point(const std::string& mount_point);

}  // namespace gguffs
