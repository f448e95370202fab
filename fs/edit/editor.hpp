// The state of an editable mount (--edit): the current version of the model's metadata and the
// tree that serves it. Every edit builds a new immutable version (gguf/edit/edited_model.hpp)
// and a new Tree for it, then swaps it in; readers keep whatever tree or content they hold.
//
// Inode numbers: a path keeps its number across versions while its content stays the same
// object (every tensors/ file, unchanged metadata/ files, the directories). A file whose content
// changed gets a new number, so the kernel's page cache of the old one (which an open or mapped
// model.gguf may still use) is never mixed with the new bytes. Each edit returns the
// invalidations the kernel needs; the FUSE side sends them from another thread.
#pragma once

#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "fs/tree/tree.hpp"
#include "gguf/edit/edited_model.hpp"
#include "gguf/edit/overlay.hpp"
#include "gguf/edit/value_text.hpp"
#include "gguf/split.hpp"

namespace gguffs {

// An edit refused: errno (EINVAL, EPERM, ENOENT, EEXIST) and a one-line reason.
class EditError : public std::system_error {
 public:
  EditError(int err, const std::string& reason)
      : std::system_error(err, std::generic_category(), reason), reason_(reason) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// What the kernel must forget after a swap: names (parent inode, name) and inodes.
struct Invalidations {
  struct Name {
    uint64_t parent;
    std::string name;
  };
  std::vector<Name> names;
  std::vector<uint64_t> inodes;
};

class Editor {
 public:
  // base_tree: build_model_tree(base, ...), served until the first edit.
  Editor(gguf::ModelSet base, std::shared_ptr<const Tree> base_tree);

  std::shared_ptr<const Tree> tree() const;

  // -o overlay=FILE: applies FILE's edits when it exists (OverlayError when it was made for
  // another base or cannot be read), and rewrites it after every edit.
  void use_overlay(const std::string& path);
  // The metadata pairs of the current version, as model.gguf holds them.
  std::vector<gguf::EditedEntry> entries() const;
  // A file of an older version the kernel may still know (a lookup answered just before an
  // edit, an open file): its content and stat, until the kernel forgets the inode.
  struct Retired {
    std::shared_ptr<const FileContent> content;
    struct stat st;  // without the size, which would render a lazy text nobody may read

    struct stat stat() const;
  };
  std::optional<Retired> retired(uint64_t inode) const;
  // The kernel's lookup count of a file that edits change (each entry reply adds one; FORGET
  // takes nlookup away). A retired file is dropped when its count reaches zero: a FORGET for an
  // inode the kernel dropped can arrive after a newer lookup gave the kernel that inode again.
  void looked_up(uint64_t inode);
  void forget(uint64_t inode, uint64_t nlookup);

  // key's value from text, parsed as the key's type (EINVAL with the reason if it does not).
  Invalidations write(const std::string& key, std::string_view text);
  // A new key: an empty STRING until written (EEXIST if it exists).
  Invalidations create(const std::string& key);
  Invalidations remove(const std::string& key);
  // from takes to's place (to's position, to's type: from's text is read again as that type when
  // from was created here without a type, as an editor's or sed's temporary file is).
  Invalidations rename(const std::string& from, const std::string& to);
  // user.gguf.type of a key created here and not yet written (EPERM for any other key).
  Invalidations set_type(const std::string& key, std::string_view type_name);

  // The reason the last write to key was refused (user.gguf.error), if any.
  std::optional<std::string> error(const std::string& key) const;
  void set_error(const std::string& key, std::string reason);

 private:
  struct Pair {
    gguf::EditedEntry entry;
    gguf::ModelPtr holder;                       // owns *value
    const gguf::Value* value = nullptr;          // the parsed value (for its type and count)
    std::shared_ptr<const FileContent> content;  // metadata/<key>
  };
  struct Known {
    uint64_t inode;
    std::shared_ptr<const FileContent> content;  // null for directories
  };

  Pair make_pair(std::string key, gguf::ValueType type, std::string value) const;
  size_t find(const std::string& key) const;  // npos when absent
  Pair& existing(const std::string& key);
  void check_editable(const std::string& key) const;
  Invalidations commit(std::vector<Pair> pairs);
  std::vector<gguf::EditedEntry> file_entries(const std::vector<Pair>& pairs) const;
  std::shared_ptr<const Tree> build_tree(const std::vector<Pair>& pairs,
                                         const gguf::EditedModel* edited,
                                         std::vector<std::string>& paths);

  gguf::ModelSet base_;
  std::shared_ptr<const Tree> base_tree_;
  bool big_endian_ = false;
  std::vector<gguf::EditedEntry> base_entries_;  // the base's pairs as model.gguf holds them
  std::string overlay_path_;                     // "" without -o overlay

  mutable std::mutex mutex_;  // edits one at a time
  std::vector<Pair> pairs_;
  std::set<std::string> fresh_;    // created here, not yet written: the type may still be set
  std::set<std::string> untyped_;  // created here without a type
  std::map<std::string, gguf::TypeSpec> typed_;  // given by user.gguf.type
  std::map<std::string, std::string> errors_;
  std::unordered_map<std::string, Known> known_;  // path -> inode of the current tree
  uint64_t next_inode_ = 0;
  struct RetiredAt {
    Retired retired;
    uint64_t version;
    std::chrono::steady_clock::time_point when;
  };
  // A retired file is kept while an open file holds it, and at least 2 versions and 1 second:
  // a lookup answered just before an edit is followed by the open at once, and the kernel
  // retries a stale open only once (8 threads editing can retire 2 versions in between). No
  // longer: FUSE gets no FORGET for such inodes until reclaim, and each version of a Llama-3
  // model.gguf holds an 8 MB header (16 versions made the daemon grow 7 MB per edit).
  static constexpr uint64_t kRetiredVersions = 2;
  static constexpr std::chrono::seconds kRetiredFor{1};
  std::unordered_map<uint64_t, RetiredAt> retired_;
  std::unordered_map<uint64_t, uint64_t> lookups_;  // inode -> the kernel's lookup count
  uint64_t version_ = 0;

  mutable std::mutex current_mutex_;
  std::shared_ptr<const Tree> current_;
};

}  // namespace gguffs
