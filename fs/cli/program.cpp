#include "fs/cli/program.hpp"
#include "fs/cli/edit_commands.hpp"
#include "fs/edit/editor.hpp"

#include <fmt/format.h>
#include <malloc.h>

#include <unistd.h>
#include <filesystem>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <system_error>

#define FUSE_USE_VERSION 34
#include <fuse3/fuse_lowlevel.h>

#include "fs/cli/auto_mount_point.hpp"
#include "fs/cli/cli.hpp"
#include "fs/cli/data_check_command.hpp"
#include "fs/cli/exit_codes.hpp"
#include "fs/cli/model_opener.hpp"
#include "fs/cli/offline_commands.hpp"
#include "fs/cli/verbose_report.hpp"
#include "fs/fuse/mount.hpp"
#include "fs/fuse/mount_point.hpp"
#include "fs/fuse/unmount.hpp"
#include "fs/tree/model_tree.hpp"
#include "gguf/diff/model_diff.hpp"
#include "gguf/parser.hpp"
#include "gguf/render/render.hpp"
#include "gguf/source/remote_url.hpp"
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

// Parses the model (all shards) and builds the tree; -v reports both on stderr.
std::shared_ptr<const Tree> load_tree(const CommandLine& cl, gguf::ModelSet* loaded = nullptr) {
  const auto started = std::chrono::steady_clock::now();
  const gguf::ModelSet models = open_models(cl, cl.model);
  if (loaded) *loaded = models;
  const auto parsed = std::chrono::steady_clock::now();
  auto tree = build_model_tree(models, Owner{getuid(), getgid()}, TreeOptions{cl.hf_dtype});
  if (cl.verbose) {
    fmt::print(stderr, "{}{}", parse_report(models.shards, parsed - started),
               tree_report(tree->size(), std::chrono::steady_clock::now() - parsed));
  }
  return tree;
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
      print(gguf::render_set_summary(open_models(cl, cl.model)));
      return kExitOk;
    case CommandLine::Action::check:
      if (cl.check_data) return run_data_check(open_models(cl, cl.model));
      print(gguf::render_set_warnings(open_models(cl, cl.model)));
      return kExitOk;
    case CommandLine::Action::ls:
      list_path(*load_tree(cl), cl.path, cl.long_listing, stdout);
      return kExitOk;
    case CommandLine::Action::cat:
      cat_path(*load_tree(cl), cl.path, STDOUT_FILENO);
      return kExitOk;
    case CommandLine::Action::diff: {
      const gguf::ModelDiff diff =
          gguf::diff_models(open_models(cl, cl.model), open_models(cl, cl.other_model));
      print(cl.json ? gguf::render_diff_json(diff) : gguf::render_diff_text(diff));
      return diff.same() ? kExitOk : kExitDifferent;
    }
    case CommandLine::Action::unmount:
      unmount_mount_point(cl.mount_point);
      return kExitOk;
    case CommandLine::Action::export_:
      export_model(cl);
      return kExitOk;
    case CommandLine::Action::set:
      set_key(cl);
      return kExitOk;
    case CommandLine::Action::unset:
      unset_key(cl);
      return kExitOk;
    case CommandLine::Action::mount:
      break;
  }
  // Without a mount point: ./<model name>, created now and removed once the mount ends (in the
  // daemon, when run returns) or when mounting fails.
  CommandLine mount_cl = cl;
  std::optional<AutoMountPoint> auto_point;
  if (cl.mount_point.empty())
    mount_cl.mount_point =
        auto_point
            .emplace(default_mount_point(gguf::is_remote_location(cl.model)
                                             ? gguf::url_path(model_opener(cl, cl.model).location)
                                             : cl.model))
            .path();
  check_mount_point(mount_cl.mount_point);
  if (!cl.edit) return mount_and_serve(mount_cl, load_tree(cl));
  // Each edit builds a header of several MB: keep such blocks in the heap rather than mapping
  // fresh zeroed pages for each (page faults were most of an edit's time).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // the largest glibc accepts
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  gguf::ModelSet models;
  auto tree = load_tree(cl, &models);
  Editor editor(std::move(models), tree);
  if (cl.overlay.empty()) {
    fmt::print(stderr, "gguffs: metadata/ is writable; edits last until unmount\n");
  } else {
    // Absolute: the daemon leaves the current directory for / when it goes to the background.
    editor.use_overlay(std::filesystem::absolute(cl.overlay).string());
    fmt::print(stderr, "gguffs: metadata/ is writable; edits are kept in {}\n", cl.overlay);
  }
  return mount_and_serve(mount_cl, std::move(tree), &editor);
}

}  // namespace

int run_program(const std::vector<std::string>& args, const std::string& version) {
  try {
    return run(parse_command_line(args), version);
  } catch (const UsageError& e) {
    return fail(kExitUsage, std::string(e.what()) + " (see gguffs --help)");
  } catch (const gguf::FormatError& e) {
    return fail(exit_code_for(e.kind()), e.what());
  } catch (const PathError& e) {
    return fail(kExitUsage, e.what());
  } catch (const gguf::OverlayError& e) {
    return fail(kExitOverlay, e.what());
  } catch (const EditCommandError& e) {
    return fail(kExitUsage, e.what());
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
