// The mounted filesystem as an immutable tree of nodes, built once before mounting. No FUSE in
// here: the FUSE adapter (fuse_ops.cpp) and command-line readers share it.
//
// Node index i is inode i + 1, so the root (index 0) is FUSE_ROOT_ID. Nodes never go away, so
// inode numbers are stable for the life of the mount and `forget` has nothing to do. A tree built
// for an edited version of the model (fs/edit/) is given its inode numbers instead, so that paths
// that did not change keep theirs across versions.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "fs/tree/content.hpp"

namespace gguffs {

enum class NodeKind : uint8_t { directory, file };

struct Node {
  std::string name;      // the file name (encoded, unique in its directory); "" for the root
  std::string original;  // the key or tensor name it was made from, as given
  uint32_t parent = 0;   // index of the parent directory; the root is its own parent
  NodeKind kind = NodeKind::directory;
  std::vector<uint32_t> children;  // directories: listing order (the model file's order)
  std::vector<uint32_t> by_name;   // directories: children sorted by name, for lookup
  uint32_t subdirs = 0;            // directories: how many children are directories
  std::shared_ptr<const FileContent> content;  // files
  // Extended attributes (name, value) in listing order: "user.gguf.type" ... (few per node).
  std::vector<std::pair<std::string, std::string>> xattrs;

  bool writable = false;  // an editable mount's metadata/ and its files: rw-r--r--, rwxr-xr-x

  bool is_dir() const { return kind == NodeKind::directory; }
};

// Facts every node's attributes share.
struct TreeAttributes {
  uid_t uid = 0;
  gid_t gid = 0;
  struct timespec mtime = {};  // the model file's modification time
  uint64_t backing_bytes = 0;  // size of the model file(s), reported by statfs
};

class Tree {
 public:
  using Index = uint32_t;
  static constexpr Index kRoot = 0;
  static constexpr uint32_t kBlockSize = 512 * 1024;  // st_blksize: one FUSE request's worth

  uint64_t inode_of(Index i) const { return inodes_.empty() ? uint64_t{i} + 1 : inodes_[i]; }
  // The node of an inode number, or nullopt for a number this tree never handed out.
  std::optional<Index> index_of(uint64_t inode) const;

  size_t size() const { return nodes_.size(); }
  const Node& node(Index i) const { return nodes_[i]; }
  const TreeAttributes& attributes() const { return attributes_; }

  // The child of directory dir called name (binary search), or nullopt.
  std::optional<Index> lookup(Index dir, std::string_view name) const;
  // The node at a '/'-separated path relative to the root ("tensors/x/data"; "" is the root).
  std::optional<Index> find(std::string_view path) const;
  // The path of a node relative to the root.
  std::string path_of(Index i) const;
  // stat(2) attributes: r--r--r-- files, r-xr-xr-x directories, exact sizes (with_size false:
  // size 0, for a caller that must not make a lazy content render itself).
  struct stat stat_of(Index i, bool with_size = true) const;
  // The value of extended attribute name on node i, or nullptr.
  const std::string* xattr(Index i, std::string_view name) const;
  // listxattr(2)'s answer for node i: every name followed by a NUL byte.
  std::string xattr_names(Index i) const;

 private:
  friend class TreeBuilder;
  std::vector<Node> nodes_;
  TreeAttributes attributes_;
  std::shared_ptr<const void> keep_alive_;  // what the contents point into (the model)
  // Given inode numbers (edited versions); empty: index + 1.
  std::vector<uint64_t> inodes_;
  std::unordered_map<uint64_t, Index> index_by_inode_;
};

// Builds a Tree: add directories and files under parents already added, then finish().
class TreeBuilder {
 public:
  using Index = Tree::Index;
  explicit TreeBuilder(const TreeAttributes& attributes);

  // original is encoded with names::encode; a name already used in the directory gets "~2",
  // "~3"... so every entry stays reachable.
  Index add_directory(Index parent, std::string_view original);
  Index add_file(Index parent, std::string_view original,
                 std::shared_ptr<const FileContent> content);
  // Adds the extended attribute name (e.g. "user.gguf.type") to node i; a second value for the
  // same name replaces the first.
  void add_xattr(Index i, std::string name, std::string value);
  // A node added so far (e.g. to find the children of a directory).
  const Node& node(Index i) const { return tree_.nodes_.at(i); }
  // Keeps owner alive as long as the tree (e.g. the model the contents read from).
  void keep_alive(std::shared_ptr<const void> owner);
  // Marks node i writable (its mode gains the owner's write bit).
  void set_writable(Index i) { tree_.nodes_.at(i).writable = true; }
  size_t size() const { return tree_.nodes_.size(); }

  std::shared_ptr<const Tree> finish() &&;
  // finish(), with inodes[i] the inode number of node i (unique, 1 for the root).
  std::shared_ptr<const Tree> finish(std::vector<uint64_t> inodes) &&;

 private:
  Index add(Index parent, std::string_view original, NodeKind kind);
  std::string unique_name(Index parent, std::string_view original);

  Tree tree_;
  std::unordered_map<Index, std::unordered_set<std::string>> used_names_;
  std::unordered_map<Index, std::unordered_map<std::string, uint64_t>> next_suffix_;
};

}  // namespace gguffs
