// Mount options that reach gguffs through mount(8), /etc/fstab and mount.fuse3 but mean nothing
// to it, so they are dropped instead of refused:
//   fstab and mount(8) bookkeeping: defaults, auto, noauto, user, nouser, users, owner, group,
//     _netdev, nofail, comment=..., x-...
//   generic flags libfuse does not take and a read-only tree without symlinks does not need:
//     relatime, norelatime, strictatime, nostrictatime, lazytime, nolazytime, diratime,
//     nodiratime, iversion, noiversion, mand, nomand, silent, loud, symfollow, nosymfollow
// The flags libfuse does take (dev, nodev, suid, nosuid, exec, noexec, atime, noatime, sync,
// async, dirsync) pass through; "ro" is always on; "rw" is refused (the mount is read-only).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gguffs {

bool is_ignored_mount_option(std::string_view option);

// options without the ignored ones, in order.
std::vector<std::string> without_ignored_mount_options(const std::vector<std::string>& options);

}  // namespace gguffs
