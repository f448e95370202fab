#include "fs/edit/editor.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <functional>

#include "fs/tree/content_text.hpp"
#include "fs/tree/names.hpp"
#include "fs/tree/split_tree.hpp"
#include "gguf/errors.hpp"
#include "gguf/render/render.hpp"
#include "gguf/render/render_json.hpp"

namespace gguffs {

namespace {

constexpr size_t npos = static_cast<size_t>(-1);

// What a fresh key of this type reads before its first write.
std::string default_text(const gguf::TypeSpec& spec) {
  switch (spec.type()) {
    case gguf::ValueType::BOOL:
      return "false";
    case gguf::ValueType::STRING:
    case gguf::ValueType::ARRAY:
      return "";
    default:
      return "0";
  }
}

// Keeps what a version's contents point into.
struct VersionOwner {
  gguf::ModelSet base;
  gguf::EditedModel edited;
};

}  // namespace

Editor::Editor(gguf::ModelSet base, std::shared_ptr<const Tree> base_tree)
    : base_(std::move(base)), base_tree_(std::move(base_tree)), current_(base_tree_) {
  const gguf::ModelPtr& first = base_.first();
  big_endian_ = first->big_endian;
  // metadata/ of the base tree holds one file per pair, in file order (model_tree.cpp).
  const auto dir = base_tree_->find("metadata");
  const std::vector<Tree::Index> files =
      dir ? base_tree_->node(*dir).children : std::vector<Tree::Index>{};
  if (files.size() != first->metadata.size())
    throw std::logic_error("the tree's metadata/ does not match the model");
  for (size_t k = 0; k < files.size(); ++k) {
    const gguf::MetadataEntry& m = first->metadata[k];
    Pair p;
    p.entry.key = std::string(m.key);
    p.entry.type = m.value.type;
    p.entry.value = first->stored_value(m);
    p.holder = first;
    p.value = &m.value;
    p.content = base_tree_->node(files[k]).content;
    pairs_.push_back(std::move(p));
  }
  std::vector<std::string> paths(base_tree_->size());
  for (Tree::Index i = 1; i < base_tree_->size(); ++i) paths[i] = base_tree_->path_of(i);
  for (Tree::Index i = 0; i < base_tree_->size(); ++i)
    known_[paths[i]] = {base_tree_->inode_of(i), base_tree_->node(i).content};
  next_inode_ = base_tree_->size() + 1;
  base_entries_ = file_entries(pairs_);  // = gguf::base_entries(first, !is_split)
  // Until the first edit: the base tree's contents (model.gguf is the model file itself), with
  // metadata/ writable.
  std::vector<std::string> unused;
  current_ = build_tree(pairs_, nullptr, unused);
}

std::shared_ptr<const Tree> Editor::tree() const {
  std::lock_guard lock(current_mutex_);
  return current_;
}

std::optional<Editor::Retired> Editor::retired(uint64_t inode) const {
  std::lock_guard lock(mutex_);
  const auto it = retired_.find(inode);
  if (it == retired_.end()) return std::nullopt;
  return it->second.retired;
}

struct stat Editor::Retired::stat() const {
  struct stat out = st;
  const uint64_t size = content->size();
  out.st_size = static_cast<off_t>(size);
  out.st_blocks = static_cast<blkcnt_t>((size + 511) / 512);
  return out;
}

void Editor::looked_up(uint64_t inode) {
  std::lock_guard lock(mutex_);
  ++lookups_[inode];
}

void Editor::forget(uint64_t inode, uint64_t nlookup) {
  std::lock_guard lock(mutex_);
  const auto it = lookups_.find(inode);
  if (it == lookups_.end()) return;  // never counted (a file that does not change)
  if (it->second > nlookup) {
    // A lookup answered after the kernel dropped its inode and before this FORGET reached us:
    // the kernel has the inode again, and an open may follow.
    it->second -= nlookup;
    return;
  }
  lookups_.erase(it);
  retired_.erase(inode);
}

std::optional<std::string> Editor::error(const std::string& key) const {
  std::lock_guard lock(mutex_);
  const auto it = errors_.find(key);
  if (it == errors_.end()) return std::nullopt;
  return it->second;
}

void Editor::set_error(const std::string& key, std::string reason) {
  std::lock_guard lock(mutex_);
  errors_[key] = std::move(reason);
}

Editor::Pair Editor::make_pair(std::string key, gguf::ValueType type, std::string value) const {
  Pair p;
  p.entry = gguf::EditedEntry::make(std::move(key), type, std::move(value));
  p.holder = gguf::parse_single_pair(p.entry, big_endian_);
  p.value = &p.holder->metadata.at(0).value;
  const gguf::ModelPtr holder = p.holder;
  p.content = std::make_shared<LazyText>(
      [holder] { return gguf::render_metadata_file(holder->metadata.at(0).value); });
  return p;
}

size_t Editor::find(const std::string& key) const {
  for (size_t k = 0; k < pairs_.size(); ++k)
    if (pairs_[k].entry.key == key) return k;
  return npos;
}

Editor::Pair& Editor::existing(const std::string& key) {
  const size_t k = find(key);
  if (k == npos) throw EditError(ENOENT, fmt::format("no key '{}'", key));
  return pairs_[k];
}

void Editor::check_editable(const std::string& key) const {
  if (gguf::is_split_key(key))
    throw EditError(EPERM, fmt::format("'{}' describes the shards and cannot be changed", key));
}

Invalidations Editor::write(const std::string& key, std::string_view text) {
  std::lock_guard lock(mutex_);
  check_editable(key);
  const Pair& old = existing(key);
  const auto typed = typed_.find(key);
  const gguf::TypeSpec spec =
      typed != typed_.end() ? typed->second : gguf::type_spec_of(*old.value);
  std::string encoded;
  try {
    encoded = gguf::encode_value_text(spec, text, big_endian_);
  } catch (const gguf::ValueTextError& e) {
    throw EditError(EINVAL, fmt::format("{} ({}): {}", key, gguf::type_spec_name(spec), e.what()));
  }
  Pair p = make_pair(key, spec.type(), std::move(encoded));
  if (key == "general.alignment") {
    const uint64_t a = p.value->type == gguf::ValueType::UINT32 ? p.value->bits : 0;
    if (a == 0 || !std::has_single_bit(a))
      throw EditError(EINVAL, "general.alignment must be a UINT32 power of two");
  }
  std::vector<Pair> pairs = pairs_;
  pairs[find(key)] = std::move(p);
  Invalidations out = commit(std::move(pairs));
  fresh_.erase(key);
  errors_.erase(key);
  return out;
}

Invalidations Editor::create(const std::string& key) {
  std::lock_guard lock(mutex_);
  check_editable(key);
  if (find(key) != npos) throw EditError(EEXIST, fmt::format("'{}' exists", key));
  std::vector<Pair> pairs = pairs_;
  pairs.push_back(make_pair(key, gguf::ValueType::STRING, std::string(8, '\0')));
  Invalidations out = commit(std::move(pairs));
  fresh_.insert(key);
  untyped_.insert(key);
  return out;
}

Invalidations Editor::remove(const std::string& key) {
  std::lock_guard lock(mutex_);
  check_editable(key);
  const size_t k = find(key);
  if (k == npos) throw EditError(ENOENT, fmt::format("no key '{}'", key));
  std::vector<Pair> pairs = pairs_;
  pairs.erase(pairs.begin() + static_cast<ptrdiff_t>(k));
  Invalidations out = commit(std::move(pairs));
  fresh_.erase(key);
  untyped_.erase(key);
  typed_.erase(key);
  errors_.erase(key);
  return out;
}

Invalidations Editor::rename(const std::string& from, const std::string& to) {
  std::lock_guard lock(mutex_);
  check_editable(from);
  check_editable(to);
  const size_t k = find(from);
  if (k == npos) throw EditError(ENOENT, fmt::format("no key '{}'", from));
  if (from == to) return {};
  std::vector<Pair> pairs = pairs_;
  const size_t target = find(to);
  Pair moved = pairs[k];
  if (target == npos) {
    moved = make_pair(to, moved.entry.type, std::string(moved.entry.value));
    pairs[k] = std::move(moved);
  } else {
    const gguf::TypeSpec to_spec = gguf::type_spec_of(*pairs[target].value);
    if (untyped_.count(from) != 0 && to_spec != gguf::type_spec_of(*moved.value)) {
      // A temporary file saved over a typed key: its text is a value of that key's type.
      try {
        moved = make_pair(to, to_spec.type(),
                          gguf::encode_value_text(to_spec, moved.value->str, big_endian_));
      } catch (const gguf::ValueTextError& e) {
        throw EditError(EINVAL,
                        fmt::format("{} ({}): {}", to, gguf::type_spec_name(to_spec), e.what()));
      }
    } else {
      moved = make_pair(to, moved.entry.type, std::string(moved.entry.value));
    }
    pairs[target] = std::move(moved);
    pairs.erase(pairs.begin() + static_cast<ptrdiff_t>(k));
  }
  Invalidations out = commit(std::move(pairs));
  for (auto* set : {&fresh_, &untyped_}) {
    set->erase(to);
    if (set->erase(from) != 0 && target == npos) set->insert(to);
  }
  typed_.erase(to);
  if (const auto t = typed_.find(from); t != typed_.end()) {
    if (target == npos) typed_[to] = t->second;
    typed_.erase(from);
  }
  errors_.erase(from);
  errors_.erase(to);
  return out;
}

Invalidations Editor::set_type(const std::string& key, std::string_view type_name) {
  std::lock_guard lock(mutex_);
  check_editable(key);
  existing(key);
  if (fresh_.count(key) == 0)
    throw EditError(EPERM, fmt::format("'{}' keeps its type (only a new, unwritten key takes "
                                       "user.gguf.type)",
                                       key));
  gguf::TypeSpec spec;
  try {
    spec = gguf::parse_type_spec(type_name);
  } catch (const gguf::ValueTextError& e) {
    throw EditError(EINVAL, e.what());
  }
  std::vector<Pair> pairs = pairs_;
  pairs[find(key)] =
      make_pair(key, spec.type(), gguf::encode_value_text(spec, default_text(spec), big_endian_));
  Invalidations out = commit(std::move(pairs));
  untyped_.erase(key);
  typed_[key] = spec;
  return out;
}

std::shared_ptr<const Tree> Editor::build_tree(const std::vector<Pair>& pairs,
                                               const gguf::EditedModel* edited,
                                               std::vector<std::string>& paths) {
  auto owner =
      std::make_shared<VersionOwner>(VersionOwner{base_, edited ? *edited : gguf::EditedModel{}});
  const std::shared_ptr<const gguf::LazyParse> parsed = edited ? edited->parsed : nullptr;
  TreeBuilder b(base_tree_->attributes());
  const Tree& base = *base_tree_;
  // Copies base node i (and what is below it) under parent of the new tree.
  std::function<void(Tree::Index, Tree::Index)> copy = [&](Tree::Index i, Tree::Index parent) {
    const Node& n = base.node(i);
    Tree::Index added;
    if (n.is_dir()) {
      added = b.add_directory(parent, n.original);
      for (const Tree::Index c : n.children) copy(c, added);
    } else {
      added = b.add_file(parent, n.original, n.content);
    }
    for (const auto& [name, value] : n.xattrs) b.add_xattr(added, name, value);
  };
  for (const Tree::Index c : base.node(Tree::kRoot).children) {
    const Node& n = base.node(c);
    if (!edited && !n.is_dir()) {
      copy(c, Tree::kRoot);
    } else if (n.name == "summary.txt") {
      b.add_file(Tree::kRoot, n.original, std::make_shared<LazyText>([parsed] {
                   return gguf::render_set_summary(gguf::single_model(parsed->get()));
                 }));
    } else if (n.name == "model.gguf") {
      b.add_file(Tree::kRoot, n.original, merged_file_content(base_.shards, edited->layout));
    } else if (n.name == "metadata.json") {
      b.add_file(Tree::kRoot, n.original, std::make_shared<LazyText>([parsed] {
                   return gguf::render_metadata_json(*parsed->get());
                 }));
    } else if (n.name == "metadata" && n.is_dir()) {
      const Tree::Index dir = b.add_directory(Tree::kRoot, n.original);
      b.set_writable(dir);
      for (const Pair& p : pairs) {
        const Tree::Index f = b.add_file(dir, p.entry.key, p.content);
        b.set_writable(f);
        b.add_xattr(f, "user.gguf.type", gguf::value_type_label(*p.value));
        if (p.value->type == gguf::ValueType::ARRAY)
          b.add_xattr(f, "user.gguf.count", std::to_string(p.value->array.count));
        if (b.node(f).name != p.entry.key) b.add_xattr(f, "user.gguf.key", p.entry.key);
      }
    } else {
      copy(c, Tree::kRoot);
    }
  }
  b.keep_alive(owner);
  // Inode numbers: kept for a path whose content is the same object, new otherwise.
  paths.assign(b.size(), std::string());
  std::vector<uint64_t> inodes(b.size());
  for (Tree::Index i = 0; i < b.size(); ++i) {
    const Node& n = b.node(i);
    if (i != Tree::kRoot)
      paths[i] = n.parent == Tree::kRoot ? n.name : paths[n.parent] + "/" + n.name;
    const auto it = known_.find(paths[i]);
    const bool same = it != known_.end() && it->second.content == n.content;
    inodes[i] = same ? it->second.inode : next_inode_++;
  }
  return std::move(b).finish(std::move(inodes));
}

std::vector<gguf::EditedEntry> Editor::file_entries(const std::vector<Pair>& pairs) const {
  // A split model's split.* keys describe the shards: the merged model.gguf has none.
  std::vector<gguf::EditedEntry> entries;
  entries.reserve(pairs.size());
  const bool split = base_.is_split();
  for (const Pair& p : pairs)
    if (!split || !gguf::is_split_key(p.entry.key)) entries.push_back(p.entry);
  return entries;
}

std::vector<gguf::EditedEntry> Editor::entries() const {
  std::lock_guard lock(mutex_);
  return file_entries(pairs_);
}

void Editor::use_overlay(const std::string& path) {
  std::lock_guard lock(mutex_);
  overlay_path_ = path;
  if (access(path.c_str(), F_OK) != 0) return;  // created by the first edit
  const gguf::Overlay overlay = gguf::read_overlay(path, big_endian_);
  if (overlay.deleted.empty() && overlay.pairs.empty()) return;
  std::vector<gguf::EditedEntry> entries;
  try {
    entries = gguf::apply_overlay(base_, base_entries_, overlay);
  } catch (const gguf::OverlayError& e) {
    throw gguf::OverlayError(path + ": " + e.what());
  }
  std::vector<Pair> pairs;
  if (base_.is_split()) {
    for (const Pair& p : pairs_)
      if (gguf::is_split_key(p.entry.key)) pairs.push_back(p);
  }
  for (const gguf::EditedEntry& e : entries) {
    const auto base = std::find_if(pairs_.begin(), pairs_.end(), [&](const Pair& p) {
      return p.entry.key == e.key && p.entry.value.data() == e.value.data();
    });
    pairs.push_back(base != pairs_.end() ? *base : make_pair(e.key, e.type, std::string(e.value)));
  }
  try {
    commit(std::move(pairs));
  } catch (const EditError& e) {
    throw gguf::OverlayError(path + ": " + e.reason());
  }
}

Invalidations Editor::commit(std::vector<Pair> pairs) {
  const std::vector<gguf::EditedEntry> entries = file_entries(pairs);
  gguf::EditedModel edited;
  try {
    edited = gguf::build_edited_model(base_.shards, entries, base_.first()->name());
  } catch (const gguf::FormatError& e) {
    throw EditError(EINVAL, e.what());
  }
  std::vector<std::string> paths;
  std::shared_ptr<const Tree> next = build_tree(pairs, &edited, paths);
  const std::shared_ptr<const Tree> previous = tree();
  const auto now = std::chrono::steady_clock::now();

  // What changed, for the kernel.
  std::unordered_map<std::string, Known> known;
  for (Tree::Index i = 0; i < next->size(); ++i)
    known[paths[i]] = {next->inode_of(i), next->node(i).content};
  Invalidations out;
  bool listing_changed = false;
  for (Tree::Index i = 1; i < previous->size(); ++i) {
    const std::string path = previous->path_of(i);
    const uint64_t inode = previous->inode_of(i);
    const auto it = known.find(path);
    if (it != known.end() && it->second.inode == inode) continue;
    const Node& n = previous->node(i);
    out.names.push_back({previous->inode_of(n.parent), n.name});
    if (!n.is_dir()) {
      // Its pages stay: they are right for the version it holds, which open and mapped readers
      // keep using (dropping them cost an edit of a 500 MB model.gguf 100 ms of CPU).
      retired_[inode] = {{n.content, previous->stat_of(i, false)}, version_, now};
    }
    if (it == known.end()) listing_changed = true;
  }
  for (Tree::Index i = 1; i < next->size(); ++i) {
    if (known_.count(paths[i]) != 0) continue;
    out.names.push_back({next->inode_of(next->node(i).parent), next->node(i).name});
    listing_changed = true;
  }
  // Dropped a few versions and a second on, unless an open file still holds the content (the
  // kernel's FORGET may never come: see kRetiredFor).
  ++version_;
  std::erase_if(retired_, [this, now](const auto& r) {
    const bool drop = r.second.version + kRetiredVersions < version_ &&
                      now - r.second.when > kRetiredFor &&
                      r.second.retired.content.use_count() == 1;
    if (drop) lookups_.erase(r.first);
    return drop;
  });
  if (listing_changed) {
    if (const auto dir = next->find("metadata")) out.inodes.push_back(next->inode_of(*dir));
  }

  if (!overlay_path_.empty()) {
    try {
      gguf::write_overlay(overlay_path_, gguf::diff_overlay(base_, base_entries_, entries),
                          big_endian_);
    } catch (const gguf::OverlayError& e) {
      throw EditError(EIO, e.what());  // the edit is not made: it could not be kept
    }
  }
  known_ = std::move(known);
  pairs_ = std::move(pairs);
  {
    std::lock_guard lock(current_mutex_);
    current_ = std::move(next);
  }
  return out;
}

}  // namespace gguffs
