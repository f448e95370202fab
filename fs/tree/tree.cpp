#include "fs/tree/tree.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "fs/tree/names.hpp"

namespace gguffs {

std::optional<Tree::Index> Tree::index_of(uint64_t inode) const {
  if (!inodes_.empty()) {
    const auto it = index_by_inode_.find(inode);
    if (it == index_by_inode_.end()) return std::nullopt;
    return it->second;
  }
  if (inode == 0 || inode > nodes_.size()) return std::nullopt;
  return static_cast<Index>(inode - 1);
}

std::optional<Tree::Index> Tree::lookup(Index dir, std::string_view name) const {
  const Node& d = nodes_[dir];
  auto it = std::lower_bound(
      d.by_name.begin(), d.by_name.end(), name,
      [this](Index child, std::string_view n) { return std::string_view(nodes_[child].name) < n; });
  if (it == d.by_name.end() || nodes_[*it].name != name) return std::nullopt;
  return *it;
}

std::optional<Tree::Index> Tree::find(std::string_view path) const {
  Index at = kRoot;
  while (!path.empty()) {
    const size_t slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      at = nodes_[at].parent;
      continue;
    }
    if (!nodes_[at].is_dir()) return std::nullopt;
    const auto next = lookup(at, part);
    if (!next) return std::nullopt;
    at = *next;
  }
  return at;
}

std::string Tree::path_of(Index i) const {
  std::vector<Index> chain;
  for (; i != kRoot; i = nodes_[i].parent) chain.push_back(i);
  std::string path;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (!path.empty()) path += '/';
    path += nodes_[*it].name;
  }
  return path;
}

struct stat Tree::stat_of(Index i, bool with_size) const {
  const Node& n = nodes_[i];
  struct stat st = {};
  st.st_ino = inode_of(i);
  st.st_uid = attributes_.uid;
  st.st_gid = attributes_.gid;
  st.st_atim = st.st_mtim = st.st_ctim = attributes_.mtime;
  st.st_blksize = kBlockSize;
  if (n.is_dir()) {
    st.st_mode = S_IFDIR | (n.writable ? 0755 : 0555);
    st.st_nlink = 2 + n.subdirs;
    return st;
  }
  const uint64_t size = with_size ? n.content->size() : 0;
  st.st_mode = S_IFREG | (n.writable ? 0644 : 0444);
  st.st_nlink = 1;
  st.st_size = static_cast<off_t>(size);
  st.st_blocks = static_cast<blkcnt_t>((size + 511) / 512);
  return st;
}

const std::string* Tree::xattr(Index i, std::string_view name) const {
  for (const auto& [n, value] : nodes_[i].xattrs)
    if (n == name) return &value;
  return nullptr;
}

std::string Tree::xattr_names(Index i) const {
  std::string list;
  for (const auto& [n, value] : nodes_[i].xattrs) {
    list += n;
    list += '\0';
  }
  return list;
}

TreeBuilder::TreeBuilder(const TreeAttributes& attributes) {
  tree_.attributes_ = attributes;
  tree_.nodes_.push_back(Node{});  // the root: no name, its own parent, a directory
}

TreeBuilder::Index TreeBuilder::add_directory(Index parent, std::string_view original) {
  const Index i = add(parent, original, NodeKind::directory);
  ++tree_.nodes_[parent].subdirs;
  return i;
}

TreeBuilder::Index TreeBuilder::add_file(Index parent, std::string_view original,
                                         std::shared_ptr<const FileContent> content) {
  if (!content) throw std::invalid_argument("a file needs a content");
  const Index i = add(parent, original, NodeKind::file);
  tree_.nodes_[i].content = std::move(content);
  return i;
}

void TreeBuilder::add_xattr(Index i, std::string name, std::string value) {
  auto& xattrs = tree_.nodes_.at(i).xattrs;
  for (auto& [n, v] : xattrs) {
    if (n == name) {
      v = std::move(value);
      return;
    }
  }
  xattrs.emplace_back(std::move(name), std::move(value));
}

void TreeBuilder::keep_alive(std::shared_ptr<const void> owner) {
  tree_.keep_alive_ = std::move(owner);
}

TreeBuilder::Index TreeBuilder::add(Index parent, std::string_view original, NodeKind kind) {
  auto& nodes = tree_.nodes_;
  if (parent >= nodes.size() || !nodes[parent].is_dir())
    throw std::invalid_argument("parent is not a directory");
  // Inode numbers are 64-bit, but indexes are 32-bit to keep the tree small.
  if (nodes.size() >= std::numeric_limits<Index>::max())
    throw std::length_error("too many files in the tree");
  Node n;
  n.name = unique_name(parent, original);
  n.original = std::string(original);
  n.parent = parent;
  n.kind = kind;
  const auto i = static_cast<Index>(nodes.size());
  nodes.push_back(std::move(n));
  nodes[parent].children.push_back(i);
  return i;
}

std::string TreeBuilder::unique_name(Index parent, std::string_view original) {
  auto& used = used_names_[parent];
  const std::string base = names::encode(original);
  std::string name = base;
  if (used.count(name) != 0) {
    // Continue from the last suffix given to this name, so n copies cost O(n), not O(n^2).
    uint64_t& k = next_suffix_[parent][base];
    if (k < 2) k = 2;
    do name = names::with_suffix(base, "~" + std::to_string(k++));
    while (used.count(name) != 0);
  }
  used.insert(name);
  return name;
}

std::shared_ptr<const Tree> TreeBuilder::finish() && {
  auto& nodes = tree_.nodes_;
  for (Node& n : nodes) {
    if (!n.is_dir()) continue;
    n.by_name = n.children;
    std::sort(n.by_name.begin(), n.by_name.end(),
              [&nodes](Tree::Index a, Tree::Index b) { return nodes[a].name < nodes[b].name; });
  }
  used_names_.clear();
  next_suffix_.clear();
  return std::make_shared<const Tree>(std::move(tree_));
}

std::shared_ptr<const Tree> TreeBuilder::finish(std::vector<uint64_t> inodes) && {
  if (inodes.size() != tree_.nodes_.size() || inodes.at(Tree::kRoot) != 1)
    throw std::invalid_argument("one inode number per node, 1 for the root");
  for (size_t i = 0; i < inodes.size(); ++i) {
    if (!tree_.index_by_inode_.emplace(inodes[i], static_cast<Index>(i)).second)
      throw std::invalid_argument("inode numbers must be unique");
  }
  tree_.inodes_ = std::move(inodes);
  return std::move(*this).finish();
}

}  // namespace gguffs
