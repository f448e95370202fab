// Mounting a tree and serving it until unmounted: session, signal handlers, mount, then (unless
// in the foreground) daemonize, so the command returns only once the mount is usable.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "fs/cli/cli.hpp"
#include "fs/tree/tree.hpp"

namespace gguffs {

class Editor;

// FUSE cannot be set up or the mount fails; exits with kExitFuse.
class FuseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The -o list handed to libfuse: always ro, fsname = the model path and subtype = gguffs unless
// the user gave them, then the user's options; default_permissions is added to allow_other and
// allow_root.
std::string fuse_option_list(const CommandLine& cl);

// Mounts tree at cl.mount_point and serves it; returns the exit code once unmounted (0 after
// fusermount3 -u, SIGINT or SIGTERM). Throws FuseError or UsageError before mounting.
// With an editor (--edit), serves its current version and takes edits of metadata/.
int mount_and_serve(const CommandLine& cl, std::shared_ptr<const Tree> tree,
                    Editor* editor = nullptr);

}  // namespace gguffs
