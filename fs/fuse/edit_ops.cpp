// The operations of an editable mount (--edit): the read-only table plus writes to metadata/.
// Every open gets a handle holding the content it opened, so a reader keeps its version while
// edits swap new ones in. A write handle collects the text, which is parsed once, at close
// (flush): a value that does not parse fails close(2) with EINVAL and leaves the key as it was.
#include <fcntl.h>
#include <linux/fs.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <unordered_set>

#include "fs/edit/editor.hpp"
#include "fs/fuse/notifier.hpp"
#include "fs/fuse/ops_common.hpp"
#include "fs/tree/names.hpp"

namespace gguffs {

namespace ops {

namespace {

struct Handle {
  std::shared_ptr<const FileContent> content;  // the version opened
  struct stat st = {};                         // its attributes
  std::string key;                             // write handles: the metadata key
  bool writable = false;
  std::mutex mutex;                 // writes come from the reader thread, reads from workers
  std::optional<std::string> text;  // write handles: the file as written so far
  bool dirty = false;
};

Handle* handle_of(const fuse_file_info* fi) {
  return fi ? reinterpret_cast<Handle*>(fi->fh) : nullptr;
}

// The handles the kernel holds. A file closed just before an unmount can have its RELEASE
// dropped with the connection, so whatever is left is freed when the daemon exits (the
// sanitizer build reported such a handle as leaked).
class OpenHandles {
 public:
  ~OpenHandles() {
    for (Handle* h : handles_) delete h;
  }
  // Passes h to the kernel with reply (which returns 0 on success); keeps it until released.
  template <class Reply>
  void hand_over(std::unique_ptr<Handle> h, fuse_file_info* fi, Reply reply) {
    fi->fh = reinterpret_cast<uint64_t>(h.get());
    {
      std::lock_guard lock(mutex_);
      handles_.insert(h.get());  // before the reply: a RELEASE may follow it at once
    }
    if (reply() == 0) {
      h.release();
      return;
    }
    std::lock_guard lock(mutex_);
    handles_.erase(h.get());
  }
  std::unique_ptr<Handle> take_back(Handle* h) {
    if (h) {
      std::lock_guard lock(mutex_);
      handles_.erase(h);
    }
    return std::unique_ptr<Handle>(h);
  }

 private:
  std::mutex mutex_;
  std::unordered_set<Handle*> handles_;
};

OpenHandles& open_handles() {
  static OpenHandles handles;
  return handles;
}

Editor& editor_of(fuse_req_t req) {
  Editor* editor = session_of(req).editor;
  if (!editor) fail(EROFS);
  return *editor;
}

void notify(fuse_req_t req, Invalidations invalidations) {
  if (Notifier* n = session_of(req).notifier) n->post(std::move(invalidations));
}

std::string whole_text(const FileContent& content) {
  ReadBuffer data(static_cast<size_t>(content.size()));
  content.read(0, static_cast<size_t>(content.size()), data);
  std::string text;
  for (const ReadPiece& p : data.pieces()) {
    if (p.is_file()) fail(EIO);  // metadata files are rendered text
    text.append(reinterpret_cast<const char*>(p.memory), p.size);
  }
  return text;
}

// The writable directory (metadata/) parent, or EROFS/EPERM.
Tree::Index writable_dir(const Tree& tree, fuse_ino_t parent) {
  const Tree::Index dir = node_of(tree, parent);
  if (!tree.node(dir).is_dir()) fail(ENOTDIR);
  if (!tree.node(dir).writable) fail(EROFS);
  return dir;
}

// The key a new name in metadata/ stands for (names that the tree would not show as they are
// are refused: the file would appear under another name).
std::string key_of_new_name(const char* name) {
  const auto key = names::decode(name);
  if (!key || names::encode(*key) != name) fail(EINVAL);
  return *key;
}

// Applies a write handle's text; records the reason when it is refused.
void apply(Editor& editor, fuse_req_t req, Handle& h) {
  if (!h.dirty) return;
  h.dirty = false;
  try {
    notify(req, editor.write(h.key, *h.text));
  } catch (const EditError& e) {
    editor.set_error(h.key, e.reason());
    throw;
  }
}

struct stat current_stat(const Session& session, fuse_ino_t ino) {
  const auto tree = session.tree();
  if (const auto i = tree->index_of(ino)) return tree->stat_of(*i);
  if (session.editor)
    if (const auto r = session.editor->retired(ino)) return r->stat();
  fail(ESTALE);  // an inode of a version long gone: the kernel looks the path up again
}

void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup) {
  if (Editor* editor = session_of(req).editor) editor->forget(ino, nlookup);
  fuse_reply_none(req);
}

void op_forget_multi(fuse_req_t req, size_t count, fuse_forget_data* forgets) {
  if (Editor* editor = session_of(req).editor)
    for (size_t k = 0; k < count; ++k) editor->forget(forgets[k].ino, forgets[k].nlookup);
  fuse_reply_none(req);
}

// The attributes an open handle sees: its version's (what it wrote, for a write handle).
struct stat handle_stat(Handle& h) {
  struct stat st = h.st;
  if (h.writable) {
    std::lock_guard lock(h.mutex);
    if (h.text) st.st_size = static_cast<off_t>(h.text->size());
  }
  return st;
}

// Whether ino's attributes may change while the kernel holds them: only a writable node's (its
// size while a handle writes it). Every other inode's bytes are one version's, never changed.
bool may_change(const Session& session, fuse_ino_t ino, const Handle* h) {
  if (h && h->writable) return true;
  const auto tree = session.tree();
  const auto i = tree->index_of(ino);
  return i && tree->node(*i).writable;
}

void op_getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  guarded(req, [&] {
    Handle* h = handle_of(fi);
    const Session& session = session_of(req);
    const struct stat st = h ? handle_stat(*h) : current_stat(session, ino);
    fuse_reply_attr(req, &st, may_change(session, ino, h) ? 0 : kCacheTimeout);
  });
}

void reply_open(fuse_req_t req, std::unique_ptr<Handle> h, fuse_file_info* fi) {
  open_handles().hand_over(std::move(h), fi, [&] { return fuse_reply_open(req, fi); });
}

void open_handle(fuse_req_t req, const Tree& tree, Tree::Index i, fuse_file_info* fi,
                 bool created) {
  const Node& n = tree.node(i);
  auto h = std::make_unique<Handle>();
  h->content = n.content;
  h->st = tree.stat_of(i);
  const bool writing = (fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC) != 0;
  if (writing) {
    if (!n.writable) fail(EROFS);
    h->writable = true;
    h->key = n.original;
    if ((fi->flags & O_TRUNC) != 0 || created) {
      h->text.emplace();
      h->dirty = !created;  // O_TRUNC alone empties the value
    }
    fi->direct_io = 1;  // reads on this handle see what it wrote
  } else {
    // A new version of a file is a new inode, so its pages can be kept.
    fi->keep_cache = 1;
    fi->direct_io = n.content->may_be_mapped() ? 0 : 1;
  }
  if (created) {
    const fuse_entry_param e = entry_of(session_of(req), tree, i);
    open_handles().hand_over(std::move(h), fi, [&] { return fuse_reply_create(req, &e, fi); });
  } else {
    reply_open(req, std::move(h), fi);
  }
}

void op_open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  guarded(req, [&] {
    const auto tree = tree_of(req);
    const auto i = tree->index_of(ino);
    if (!i) {
      // An inode of the version before the last edit (looked up just before it): that version.
      const auto r = session_of(req).editor->retired(ino);
      if (!r) fail(ESTALE);  // the kernel looks the path up again
      if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC) != 0) fail(ESTALE);
      auto h = std::make_unique<Handle>();
      h->content = r->content;
      h->st = r->stat();
      fi->keep_cache = 1;
      fi->direct_io = r->content->may_be_mapped() ? 0 : 1;
      return reply_open(req, std::move(h), fi);
    }
    if (tree->node(*i).is_dir()) fail(EISDIR);
    open_handle(req, *tree, *i, fi, false);
  });
}

void op_create(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t, fuse_file_info* fi) {
  guarded(req, [&] {
    Editor& editor = editor_of(req);
    writable_dir(*tree_of(req), parent);
    notify(req, editor.create(key_of_new_name(name)));
    const auto tree = tree_of(req);
    const auto i = tree->lookup(writable_dir(*tree, parent), name);
    if (!i) fail(EIO);
    open_handle(req, *tree, *i, fi, true);
  });
}

void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  guarded(req, [&] {
    Handle* h = handle_of(fi);
    if (!h) return tree_operations().read(req, ino, size, off, fi);
    if (!h->writable) return reply_content(req, *h->content, size, off);
    std::lock_guard lock(h->mutex);
    if (!h->text) h->text = whole_text(*h->content);
    if (off < 0) fail(EINVAL);
    const auto start = std::min(static_cast<size_t>(off), h->text->size());
    const size_t n = std::min(size, h->text->size() - start);
    fuse_reply_buf(req, h->text->data() + start, n);
  });
}

void op_write(fuse_req_t req, fuse_ino_t, const char* buf, size_t size, off_t off,
              fuse_file_info* fi) {
  guarded(req, [&] {
    Handle* h = handle_of(fi);
    if (!h || !h->writable) fail(EBADF);
    if (off < 0) fail(EINVAL);
    constexpr size_t kMaxValueText = size_t{1} << 30;
    if (static_cast<uint64_t>(off) + size > kMaxValueText) fail(EFBIG);
    std::lock_guard lock(h->mutex);
    if (!h->text) h->text = whole_text(*h->content);
    const auto at = static_cast<size_t>(off);
    if (h->text->size() < at + size) h->text->resize(at + size, '\0');
    std::memcpy(h->text->data() + at, buf, size);
    h->dirty = true;
    fuse_reply_write(req, size);
  });
}

void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info* fi) {
  guarded(req, [&] {
    Editor& editor = editor_of(req);
    const auto tree = tree_of(req);
    const auto i = tree->index_of(ino);
    Handle* h = handle_of(fi);
    const bool writable = (h && h->writable) || (i && tree->node(*i).writable);
    if (!writable) fail(EROFS);
    if ((to_set & FUSE_SET_ATTR_SIZE) != 0) {
      if (attr->st_size < 0 || attr->st_size > (off_t{1} << 30)) fail(EFBIG);
      const auto size = static_cast<size_t>(attr->st_size);
      if (h && h->writable) {
        std::lock_guard lock(h->mutex);
        if (!h->text) h->text = whole_text(*h->content);
        h->text->resize(size, '\0');
        h->dirty = true;
      } else {
        // truncate(2) by path: applied at once, like a write and a close.
        std::string text = whole_text(*tree->node(*i).content);
        text.resize(size, '\0');
        notify(req, editor.write(tree->node(*i).original, text));
      }
    }
    // Modes, owners and times (sed -i and cp -p copy them to their temporary file) are accepted
    // and not kept.
    const struct stat st = h ? handle_stat(*h) : current_stat(session_of(req), ino);
    fuse_reply_attr(req, &st, 0);
  });
}

void op_flush(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  guarded(req, [&] {
    Handle* h = handle_of(fi);
    if (h && h->writable) {
      std::lock_guard lock(h->mutex);
      apply(editor_of(req), req, *h);
    }
    fuse_reply_err(req, 0);
  });
}

void op_release(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  std::unique_ptr<Handle> h = open_handles().take_back(handle_of(fi));
  if (h && h->writable && h->dirty) {
    // No flush came (the kernel always sends one on close; this is a safety net).
    try {
      apply(editor_of(req), req, *h);
    } catch (...) {
    }
  }
  fuse_reply_err(req, 0);
}

void op_fsync(fuse_req_t req, fuse_ino_t ino, int, fuse_file_info* fi) {
  op_flush(req, ino, fi);
}

void op_unlink(fuse_req_t req, fuse_ino_t parent, const char* name) {
  guarded(req, [&] {
    Editor& editor = editor_of(req);
    const auto tree = tree_of(req);
    const auto i = tree->lookup(writable_dir(*tree, parent), name);
    if (!i) fail(ENOENT);
    notify(req, editor.remove(tree->node(*i).original));
    fuse_reply_err(req, 0);
  });
}

void op_rename(fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t newparent,
               const char* newname, unsigned int flags) {
  guarded(req, [&] {
    Editor& editor = editor_of(req);
    const auto tree = tree_of(req);
    const Tree::Index dir = writable_dir(*tree, parent);
    if (writable_dir(*tree, newparent) != dir) fail(EXDEV);
    if ((flags & RENAME_EXCHANGE) != 0) fail(EINVAL);
    const auto from = tree->lookup(dir, name);
    if (!from) fail(ENOENT);
    const auto to = tree->lookup(dir, newname);
    if (to && (flags & RENAME_NOREPLACE) != 0) fail(EEXIST);
    const std::string to_key = to ? tree->node(*to).original : key_of_new_name(newname);
    notify(req, editor.rename(tree->node(*from).original, to_key));
    fuse_reply_err(req, 0);
  });
}

void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char* name, const char* value, size_t size,
                 int) {
  guarded(req, [&] {
    Editor& editor = editor_of(req);
    const auto tree = tree_of(req);
    const Tree::Index i = node_of(*tree, ino);
    if (!tree->node(i).writable || tree->node(i).is_dir()) fail(EROFS);
    // Other namespaces (sed -i copies system.posix_acl_access) are not supported, which copying
    // tools accept; of the user ones only the type can be set.
    if (!std::string_view(name).starts_with("user.")) fail(ENOTSUP);
    if (std::string_view(name) != "user.gguf.type") fail(EPERM);
    notify(req, editor.set_type(tree->node(i).original, std::string_view(value, size)));
    fuse_reply_err(req, 0);
  });
}

void op_mkdir(fuse_req_t req, fuse_ino_t, const char*, mode_t) {
  fuse_reply_err(req, EPERM);
}

fuse_lowlevel_ops make_edit_operations() {
  fuse_lowlevel_ops o = read_only_operations();
  o.getattr = op_getattr;
  o.forget = op_forget;
  o.forget_multi = op_forget_multi;
  o.open = op_open;
  o.create = op_create;
  o.read = op_read;
  o.write = op_write;
  o.setattr = op_setattr;
  o.flush = op_flush;
  o.release = op_release;
  o.fsync = op_fsync;
  o.unlink = op_unlink;
  o.rename = op_rename;
  o.setxattr = op_setxattr;
  o.mkdir = op_mkdir;
  return o;
}

}  // namespace

}  // namespace ops

const fuse_lowlevel_ops& edit_operations() {
  static const fuse_lowlevel_ops ops = ops::make_edit_operations();
  return ops;
}

}  // namespace gguffs
