// The libfuse low-level callbacks serving a Tree. The session's userdata is the Tree; nothing
// here is global. Every callback has one error boundary mapping exceptions to an errno.
#pragma once

#define FUSE_USE_VERSION 34
#include <fuse3/fuse_lowlevel.h>

namespace gguffs {

// The operations table (read-only filesystem: every writing operation answers EROFS).
const fuse_lowlevel_ops& tree_operations();

// Attribute and entry timeouts: the files never change while mounted.
inline constexpr double kCacheTimeout = 1e6;
// The largest request: 512 KiB keeps splice pipes within the 1 MiB pipe limit.
inline constexpr unsigned kMaxWrite = 512 * 1024;

}  // namespace gguffs
