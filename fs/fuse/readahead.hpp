// The kernel reads ahead 128 KiB at a time on a FUSE mount, so a first sequential read of a
// tensor costs one round trip to the daemon per 128 KiB. Requests can carry 512 KiB (max_write),
// and raising the mount's read-ahead to match makes a first read about 40% faster here
// (docs/BENCHMARKS.md). The knob is the mount's backing device in sysfs, writable by root only:
// for other users this is a no-op.
#pragma once

#include <string>

namespace gguffs {

// The absolute path the kernel will record for mount_point. Call it before mounting: resolving
// the path afterwards would stat the new mount, whose daemon is not serving yet.
std::string resolve_mount_point(const std::string& mount_point);

// Best effort: sets /sys/class/bdi/<major:minor of the mount>/read_ahead_kb to kib. Looks the
// device up in /proc/self/mountinfo, so it sends nothing to the (not yet serving) daemon.
void raise_readahead(const std::string& resolved_mount_point, unsigned kib);

}  // namespace gguffs
