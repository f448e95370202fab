// `gguffs ls MODEL [PATH]` and `gguffs cat MODEL PATH`: what the mount would show at PATH, read
// from the same tree, for machines without FUSE (containers, no /dev/fuse, no privileges).
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

#include "fs/tree/tree.hpp"

namespace gguffs {

// PATH is not in the tree, or is the wrong kind (cat of a directory); exits with kExitUsage.
class PathError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ls: a directory's entries in the mount's order (the model's order, as `ls -1U` shows them),
// one per line; a file's path as given. long_format: like `ls -lU --time-style=long-iso`, with
// the "total" line, owner and group names and aligned columns.
void list_path(const Tree& tree, const std::string& path, bool long_format, std::FILE* out);

// cat: the bytes of the file at path, written to fd in 1 MiB reads, so a tensor of any size
// streams without being held in memory.
void cat_path(const Tree& tree, const std::string& path, int fd);

}  // namespace gguffs
