#include "fs/program.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <new>
#include <system_error>

#define FUSE_USE_VERSION 34
#include <fuse3/fuse_lowlevel.h>

#include "fs/cli.hpp"
#include "fs/exit_codes.hpp"
#include "fs/model_tree.hpp"
#include "fs/mount.hpp"
#include "fs/mount_point.hpp"
#include "gguf/parser.hpp"
#include "gguf/render.hpp"
#include "gguf/split.hpp"

namespace gguffs {

namespace {

void print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
}

int fail(ExitCode code, const std::string& message) {
  std::fflush(stdout);
  fmt::print(stderr, "gguffs: {}\n", message);
  return code;
}

int run(const CommandLine& cl, const std::string& version) {
  switch (cl.action) {
    case CommandLine::Action::help:
      print(usage_text());
      return kExitOk;
    case CommandLine::Action::version:
      print(fmt::format("gguffs {} (libfuse {})\n", version, fuse_pkgversion()));
      return kExitOk;
    case CommandLine::Action::summary:
      print(gguf::render_set_summary(gguf::open_model_set(cl.model, cl.single)));
      return kExitOk;
    case CommandLine::Action::check:
      print(gguf::render_set_warnings(gguf::open_model_set(cl.model, cl.single)));
      return kExitOk;
    case CommandLine::Action::mount:
      break;
  }
  check_mount_point(cl.mount_point);
  const gguf::ModelSet models = gguf::open_model_set(cl.model, cl.single);
  auto tree = build_model_tree(models, Owner{getuid(), getgid()});
  return mount_and_serve(cl, std::move(tree));
}

}  // namespace

int run_program(const std::vector<std::string>& args, const std::string& version) {
  try {
    return run(parse_command_line(args), version);
  } catch (const UsageError& e) {
    return fail(kExitUsage, std::string(e.what()) + " (see gguffs --help)");
  } catch (const gguf::FormatError& e) {
    return fail(exit_code_for(e.kind()), e.what());
  } catch (const MountPointError& e) {
    return fail(kExitMountPoint, e.what());
  } catch (const FuseError& e) {
    return fail(kExitFuse, e.what());
  } catch (const std::bad_alloc&) {
    return fail(kExitInternal, "out of memory");
  } catch (const std::exception& e) {
    return fail(kExitInternal, e.what());
  }
}

}  // namespace gguffs
