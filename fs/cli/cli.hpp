// The command line, in the conventions of sshfs and squashfuse:
//   gguffs [options] MODEL.gguf MOUNTPOINT
//   gguffs summary MODEL.gguf       print summary.txt
//   gguffs check MODEL.gguf         print the warnings; exit 0 when the file loads
//   gguffs check --data MODEL.gguf  also validate every tensor's bytes as llama.cpp does
//   gguffs ls [-l] MODEL [PATH]     list what the mount would show at PATH, without mounting
//   gguffs cat MODEL PATH           print the file the mount would show at PATH
//   gguffs diff [--json] A B        what differs between two models
//   gguffs -u MOUNTPOINT            unmount
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gguf/hf/hf_view.hpp"

namespace gguffs {

struct CommandLine {
  enum class Action {
    mount,
    summary,
    check,
    ls,
    cat,
    diff,
    unmount,
    help,
    version,
    export_,
    set,
    unset
  };
  Action action = Action::mount;
  std::string model;
  std::string mount_point;    // mount: empty for the default (auto_mount_point.hpp); -u: the target
  std::string path;           // ls, cat: the path inside the mount ("" is the root)
  std::string other_model;    // diff: the second model (B)
  bool long_listing = false;  // ls -l
  bool verbose = false;       // -v: what was parsed and how long it took, on stderr
  bool foreground = false;    // -f
  bool debug = false;         // -d (implies -f)
  bool single_thread = false;              // -s
  bool single = false;                     // --single: a shard of a split model as an ordinary file
  bool edit = false;                       // --edit or -o edit: metadata/ writable (fs/edit/)
  std::string overlay;                     // -o overlay=FILE (implies edit), export --overlay FILE
  std::string key;                         // set, unset: the metadata key (mount_point: MNT)
  std::string value;                       // set: the value's text
  std::string type;                        // set --type TYPE: the type of a new key
  bool check_data = false;                 // check --data: validate the tensor bytes too
  bool json = false;                       // diff --json
  std::vector<std::string> mount_options;  // from -o, split at commas ("\," escapes a comma)
  // Remote models (taken out of mount_options; libfuse never sees them):
  std::string cacert;                         // -o cacert=FILE
  uint64_t cache_size = uint64_t{256} << 20;  // -o cache_size=SIZE (K, M, G suffixes)
  std::string cache_dir;                      // -o cache_dir[=DIR]; empty: no disk cache
  // -o hf_dtype=F32|F16|BF16: what quantized tensors decode to in hf/ (not passed to FUSE).
  gguf::hf::Dtype hf_dtype = gguf::hf::Dtype::F32;
};

// "256M" -> 268435456: a byte count with an optional K, M, G or T suffix (powers of 1024).
// Throws UsageError.
uint64_t parse_size(const std::string& text);

// A mistake in the arguments; exits with kExitUsage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// args excludes the program name. Throws UsageError.
CommandLine parse_command_line(const std::vector<std::string>& args);

// The text of `gguffs --help`.
std::string usage_text();

}  // namespace gguffs
