// The libfuse low-level callbacks serving a Tree. The session's userdata is the Tree; nothing
// here is global. Every callback has one error boundary mapping exceptions to an errno.
#pragma once

#define FUSE_USE_VERSION 34
#include <fuse3/fuse_lowlevel.h>

#include <atomic>
#include <memory>
#include <string>

namespace gguffs {

class Tree;
class Editor;
class Notifier;

// One mounted session: the tree it serves (the session's userdata), and what the kernel agreed
// to in init. With "no open" granted, open and opendir answer ENOSYS once and the kernel stops
// sending them: two round trips fewer per file and per directory, while the page cache is kept
// (the kernel then opens with keep_cache and cache_dir by itself).
struct Session {
  explicit Session(std::shared_ptr<const Tree> t) : fixed_tree(std::move(t)) {}
  // The tree served: fixed, or an editable mount's current version (a reference held for the
  // length of one request).
  std::shared_ptr<const Tree> tree() const;
  std::shared_ptr<const Tree> fixed_tree;
  Editor* editor = nullptr;      // --edit: metadata/ is writable (fs/edit/editor.hpp)
  Notifier* notifier = nullptr;  // --edit: sends the kernel what an edit changed
  bool no_open = false;
  bool no_opendir = false;
  // Set before serving to raise the mount's read-ahead (readahead.hpp). The kernel sets the
  // read-ahead from init's reply, so it is applied by the first request after init.
  std::string readahead_mount_point;
  std::atomic<bool> readahead_pending{false};
};

// The operations table (read-only filesystem: every writing operation answers EROFS).
const fuse_lowlevel_ops& tree_operations();
// The table of an editable mount (edit_ops.cpp): open files hold a snapshot of what they opened,
// and metadata/ takes writes, create, unlink, rename and user.gguf.type.
const fuse_lowlevel_ops& edit_operations();

// Attribute and entry timeouts: the files never change while mounted (an editable mount's
// metadata/ and root files excepted: edit_ops.cpp).
inline constexpr double kCacheTimeout = 1e6;
// The largest request: 512 KiB keeps splice pipes within the 1 MiB pipe limit.
inline constexpr unsigned kMaxWrite = 512 * 1024;

}  // namespace gguffs
