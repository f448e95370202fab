#include "fs/fuse/mount.hpp"

#include <signal.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <vector>

#include "fs/fuse/fuse_ops.hpp"
#include "fs/fuse/notifier.hpp"
#include "fs/fuse/readahead.hpp"
#include "fs/fuse/request_loop.hpp"

namespace gguffs {

namespace {

// libfuse splits -o lists at commas and reads backslash escapes.
std::string escape_option_value(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == ',' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

bool has_option(const CommandLine& cl, const std::string& name) {
  for (const std::string& o : cl.mount_options)
    if (o == name || o.rfind(name + "=", 0) == 0) return true;
  return false;
}

struct SessionDeleter {
  void operator()(fuse_session* se) const { fuse_session_destroy(se); }
};
using SessionPtr = std::unique_ptr<fuse_session, SessionDeleter>;

SessionPtr new_session(const CommandLine& cl, Session& session) {
  std::vector<std::string> args = {"gguffs", "-o", fuse_option_list(cl)};
  if (cl.debug) args.push_back("-d");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  fuse_args fargs = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());
  const fuse_lowlevel_ops& ops = session.editor ? edit_operations() : tree_operations();
  // The Session (the tree, and what init agreed) is the userdata; nothing is global.
  SessionPtr se(fuse_session_new(&fargs, &ops, sizeof(ops), &session));
  fuse_opt_free_args(&fargs);
  if (!se) throw UsageError("invalid mount options: " + fuse_option_list(cl));
  return se;
}

int serve(const CommandLine& cl, fuse_session* se) {
  RequestLoopOptions options;
  if (cl.single_thread) options.workers = 0;
  // A failure to read the device is an error; a signal or an unmount is a clean stop.
  return serve_requests(se, options) < 0 ? 1 : 0;
}

}  // namespace

std::string fuse_option_list(const CommandLine& cl) {
  // An editable mount is read-write for the kernel; the tree refuses writes outside metadata/.
  std::string list = cl.edit ? "rw" : "ro";
  if (!has_option(cl, "fsname")) list += ",fsname=" + escape_option_value(cl.model);
  if (!has_option(cl, "subtype")) list += ",subtype=gguffs";
  for (const std::string& o : cl.mount_options)
    if (o != "ro" && o != "rw") list += "," + o;
  // Other users only get in when asked for, and then the kernel checks the files' modes
  // (r--r--r--, owned by the mounting user) instead of letting everyone through.
  if ((has_option(cl, "allow_other") || has_option(cl, "allow_root")) &&
      !has_option(cl, "default_permissions"))
    list += ",default_permissions";
  return list;
}

int mount_and_serve(const CommandLine& cl, std::shared_ptr<const Tree> tree, Editor* editor) {
  if (access("/dev/fuse", F_OK) != 0) throw FuseError("/dev/fuse does not exist (is FUSE loaded?)");
  Session session(std::move(tree));  // outlives se
  session.editor = editor;
  SessionPtr se = new_session(cl, session);
  if (fuse_set_signal_handlers(se.get()) != 0) throw FuseError("cannot set signal handlers");
  session.readahead_mount_point = resolve_mount_point(cl.mount_point);
  session.readahead_pending = true;
  if (fuse_session_mount(se.get(), cl.mount_point.c_str()) != 0) {
    fuse_remove_signal_handlers(se.get());
    throw FuseError(cl.mount_point + ": mount failed");
  }
  // Only now, with the mount in place, does the parent return (and the shell go on).
  if (fuse_daemonize(cl.foreground ? 1 : 0) != 0) {
    fuse_session_unmount(se.get());
    fuse_remove_signal_handlers(se.get());
    throw FuseError("cannot start the daemon");
  }
  std::optional<Notifier> notifier;  // stopped before se goes
  if (editor) session.notifier = &notifier.emplace(se.get());
  const int code = serve(cl, se.get());
  session.notifier = nullptr;
  notifier.reset();
  fuse_session_unmount(se.get());
  fuse_remove_signal_handlers(se.get());
  return code;
}

}  // namespace gguffs
