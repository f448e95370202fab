// The commands around editing (fs/edit/):
//   gguffs export MODEL.gguf --overlay FILE OUT.gguf   the patched model, without mounting
//   gguffs set MNT KEY [--type TYPE] VALUE             write MNT/metadata/KEY (scripts)
//   gguffs unset MNT KEY                               remove it
#pragma once

#include <stdexcept>

#include "fs/cli/cli.hpp"

namespace gguffs {

// A value refused by the mount (the reason from user.gguf.error); exits with kExitUsage.
class EditCommandError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes what MNT/model.gguf of `gguffs --edit -o overlay=FILE MODEL` shows, byte for byte: the
// header from memory, the tensor data with copy_file_range (a reflink on filesystems that have
// them; nothing passes through this process).
void export_model(const CommandLine& cl);
void set_key(const CommandLine& cl);
void unset_key(const CommandLine& cl);

}  // namespace gguffs
