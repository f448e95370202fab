// The command line, in the conventions of sshfs and squashfuse:
//   gguffs [options] MODEL.gguf MOUNTPOINT
//   gguffs summary MODEL.gguf       print summary.txt
//   gguffs check MODEL.gguf         print the warnings; exit 0 when the file loads
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace gguffs {

struct CommandLine {
  enum class Action { mount, summary, check, help, version };
  Action action = Action::mount;
  std::string model;
  std::string mount_point;
  bool foreground = false;                 // -f
  bool debug = false;                      // -d (implies -f)
  bool single_thread = false;              // -s
  bool single = false;  // --single: a shard of a split model as an ordinary file
  std::vector<std::string> mount_options;  // from -o, split at commas ("\," escapes a comma)
};

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
