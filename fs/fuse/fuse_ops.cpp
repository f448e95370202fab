#include "fs/fuse/fuse_ops.hpp"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "fs/edit/editor.hpp"
#include "fs/fuse/ops_common.hpp"
#include "fs/fuse/readahead.hpp"
#include "fs/fuse/truncation_guard.hpp"
#include "fs/tree/tree.hpp"

namespace gguffs {

std::shared_ptr<const Tree> Session::tree() const {
  return editor ? editor->tree() : fixed_tree;
}

namespace ops {

Session& session_of(fuse_req_t req) {
  Session& session = *static_cast<Session*>(fuse_req_userdata(req));
  if (session.readahead_pending.load(std::memory_order_relaxed) &&
      session.readahead_pending.exchange(false)) {
    raise_readahead(session.readahead_mount_point, kMaxWrite / 1024);
  }
  return session;
}

std::shared_ptr<const Tree> tree_of(fuse_req_t req) {
  return session_of(req).tree();
}

Tree::Index node_of(const Tree& tree, fuse_ino_t ino) {
  const auto i = tree.index_of(ino);
  if (!i) fail(ENOENT);
  return *i;
}

fuse_entry_param entry_of(const Session& session, const Tree& tree, Tree::Index i) {
  fuse_entry_param e = {};
  e.ino = tree.inode_of(i);
  e.generation = 1;
  e.attr = tree.stat_of(i);
  // An editable mount's metadata/ files and root files change with every edit: the kernel looks
  // the name up again each time (tensors/ never changes). An edit gives a changed file a new
  // inode, so the attributes of an inode stay right, except while a writable file is written.
  const Node& n = tree.node(i);
  const bool renamed = session.editor && (n.writable || (n.parent == Tree::kRoot && !n.is_dir()));
  e.attr_timeout = session.editor && n.writable ? 0 : kCacheTimeout;
  e.entry_timeout = renamed ? 0 : kCacheTimeout;
  if (renamed) session.editor->looked_up(e.ino);  // the kernel counts this reply
  return e;
}

void op_init(void* userdata, fuse_conn_info* conn) {
  auto* session = static_cast<Session*>(userdata);
  // An editable mount needs every open: the handle holds the version it opened.
  if (session->editor) {
    if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC) conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
  } else if (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) {
    conn->want |= FUSE_CAP_NO_OPEN_SUPPORT;
    session->no_open = true;
  }
  if (!session->editor && (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT)) {
    conn->want |= FUSE_CAP_NO_OPENDIR_SUPPORT;
    session->no_opendir = true;
  }
  // The bytes of an inode never change (an edit makes new inodes), so the kernel need not ask
  // for the attributes before every read(2) to see whether the file changed: with a zero
  // attribute timeout that was one GETATTR per read, 25 ms for an 8 MB header read by head.
  conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
  // Without SPLICE_WRITE libfuse copies every tensor read through a buffer.
  if (conn->capable & FUSE_CAP_SPLICE_WRITE) conn->want |= FUSE_CAP_SPLICE_WRITE;
  if (conn->capable & FUSE_CAP_READDIRPLUS) conn->want |= FUSE_CAP_READDIRPLUS;
  // Above 512 KiB a splice reply needs a pipe larger than the system allows and libfuse
  // silently falls back to copying.
  conn->max_write = kMaxWrite;
  // max_readahead stays as the kernel offers it (it can only be lowered).
}

void op_lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  guarded(req, [&] {
    const auto tree_ref = tree_of(req);
    const Tree& tree = *tree_ref;
    const Tree::Index dir = node_of(tree, parent);
    if (!tree.node(dir).is_dir()) fail(ENOTDIR);
    if (const auto child = tree.lookup(dir, name)) {
      const fuse_entry_param e = entry_of(session_of(req), tree, *child);
      fuse_reply_entry(req, &e);
      return;
    }
    // A negative entry with a timeout: the kernel remembers that the name does not exist (not
    // in a directory an edit can add to).
    fuse_entry_param e = {};
    e.entry_timeout = tree.node(dir).writable ? 0 : kCacheTimeout;
    fuse_reply_entry(req, &e);
  });
}

void op_forget(fuse_req_t req, fuse_ino_t, uint64_t) {
  fuse_reply_none(req);
}

void op_forget_multi(fuse_req_t req, size_t, fuse_forget_data*) {
  fuse_reply_none(req);
}

void op_getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  guarded(req, [&] {
    const auto tree_ref = tree_of(req);
    const Tree& tree = *tree_ref;
    const struct stat st = tree.stat_of(node_of(tree, ino));
    fuse_reply_attr(req, &st, kCacheTimeout);
  });
}

void op_opendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  guarded(req, [&] {
    const auto tree_ref = tree_of(req);
    const Tree& tree = *tree_ref;
    if (!tree.node(node_of(tree, ino)).is_dir()) fail(ENOTDIR);
    if (session_of(req).no_opendir) fail(ENOSYS);
    const bool changes = tree.node(node_of(tree, ino)).writable;
    fi->cache_readdir = changes ? 0 : 1;
    fi->keep_cache = changes ? 0 : 1;
    fuse_reply_open(req, fi);
  });
}

// Directory offsets: entry k of [".", "..", children...] is followed by offset k + 1.
void read_directory(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, bool plus) {
  guarded(req, [&] {
    const auto tree_ref = tree_of(req);
    const Tree& tree = *tree_ref;
    const Tree::Index dir = node_of(tree, ino);
    const Node& d = tree.node(dir);
    if (!d.is_dir()) fail(ENOTDIR);
    const size_t total = d.children.size() + 2;
    if (off >= 0 && static_cast<size_t>(off) >= total) {
      fuse_reply_buf(req, nullptr, 0);  // the end: every listing asks once more to learn it
      return;
    }
    // Not zero-filled: the kernel asks for up to max_pages (512 KiB) per call, and clearing that
    // on every call was a fifth of the daemon's time in a first `ls -lR`.
    std::unique_ptr<char[]> buf(new char[size]);
    size_t used = 0;
    for (auto k = static_cast<size_t>(off < 0 ? 0 : off); k < total; ++k) {
      const bool dot = k < 2;
      const Tree::Index i = k == 0 ? dir : k == 1 ? d.parent : d.children[k - 2];
      const char* name = k == 0 ? "." : k == 1 ? ".." : tree.node(i).name.c_str();
      const auto next = static_cast<off_t>(k + 1);
      size_t n;
      if (plus) {
        fuse_entry_param e = entry_of(session_of(req), tree, i);
        if (dot) e.ino = 0;  // "." and ".." take no lookup reference
        n = fuse_add_direntry_plus(req, buf.get() + used, size - used, name, &e, next);
      } else {
        const struct stat st = tree.stat_of(i);
        n = fuse_add_direntry(req, buf.get() + used, size - used, name, &st, next);
      }
      if (n > size - used) break;  // did not fit: the kernel asks again from this offset
      used += n;
    }
    fuse_reply_buf(req, buf.get(), used);
  });
}

void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info*) {
  read_directory(req, ino, size, off, false);
}

void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info*) {
  read_directory(req, ino, size, off, true);
}

void op_open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  guarded(req, [&] {
    const auto tree_ref = tree_of(req);
    const Tree& tree = *tree_ref;
    const Node& n = tree.node(node_of(tree, ino));
    if (n.is_dir()) fail(EISDIR);
    if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) fail(EROFS);
    // The mount is read-only, so the kernel refuses writable opens before they get here.
    if (session_of(req).no_open && n.content->may_be_mapped()) fail(ENOSYS);
    // The files never change: keep the page cache across opens. No direct_io unless the content
    // asks for it, because direct_io makes mmap fail.
    fi->keep_cache = 1;
    fi->direct_io = n.content->may_be_mapped() ? 0 : 1;
    fuse_reply_open(req, fi);
  });
}

// A fuse_bufvec with room for count buffers (the struct declares one).
struct BufvecDeleter {
  void operator()(fuse_bufvec* v) const { std::free(v); }
};
using BufvecPtr = std::unique_ptr<fuse_bufvec, BufvecDeleter>;

BufvecPtr make_bufvec(const ReadBuffer& data) {
  const auto& pieces = data.pieces();
  const size_t count = pieces.empty() ? 1 : pieces.size();
  void* raw = std::calloc(1, sizeof(fuse_bufvec) + (count - 1) * sizeof(fuse_buf));
  if (!raw) throw std::bad_alloc();
  BufvecPtr v(static_cast<fuse_bufvec*>(raw));
  v->count = pieces.size();
  for (size_t k = 0; k < pieces.size(); ++k) {
    fuse_buf& b = v->buf[k];
    b.size = pieces[k].size;
    if (pieces[k].is_file()) {
      // Spliced from the model file at its absolute offset: the bytes never enter the daemon.
      b.flags = static_cast<fuse_buf_flags>(FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK);
      b.fd = pieces[k].fd;
      b.pos = static_cast<off_t>(pieces[k].file_offset);
    } else {
      b.mem = const_cast<uint8_t*>(pieces[k].memory);  // libfuse only reads from it
    }
  }
  return v;
}

// File pieces are spliced (the bytes never enter the daemon). Bytes already in memory (decoded
// floats, rendered text) are written straight from it instead: splicing them would first copy
// them into freshly allocated pipe pages, then again into the page cache.
fuse_buf_copy_flags reply_flags(const ReadBuffer& data) {
  for (const ReadPiece& piece : data.pieces())
    if (piece.is_file()) return FUSE_BUF_SPLICE_MOVE;
  return FUSE_BUF_NO_SPLICE;
}

void reply_content(fuse_req_t req, const FileContent& content, size_t size, off_t off) {
  if (off < 0) fail(EINVAL);
  ReadBuffer data(size);
  try {
    content.read(static_cast<uint64_t>(off), size, data);
    require_file_pieces_present(data);  // the model file may have shrunk since
  } catch (const ModelFileShrank&) {
    warn_model_file_shrank();
    throw;
  }
  if (data.pieces().empty()) {
    fuse_reply_buf(req, nullptr, 0);
    return;
  }
  const fuse_buf_copy_flags flags = reply_flags(data);
  if (flags == FUSE_BUF_NO_SPLICE && data.pieces().size() > 1) {
    // Bytes in several memory pieces (a remote file's cached blocks, text parts): one writev
    // from where they are. fuse_reply_data would first copy them into a fresh buffer (a
    // remote read spent 17% of the daemon's CPU there, most of it on page faults).
    std::vector<iovec> iov;
    iov.reserve(data.pieces().size());
    for (const ReadPiece& piece : data.pieces())
      iov.push_back({const_cast<uint8_t*>(piece.memory), piece.size});  // only read from
    fuse_reply_iov(req, iov.data(), static_cast<int>(iov.size()));
    return;
  }
  BufvecPtr v = make_bufvec(data);
  fuse_reply_data(req, v.get(), flags);
}

void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info*) {
  guarded(req, [&] {
    const auto tree_ref = tree_of(req);
    const Tree& tree = *tree_ref;
    const Node& n = tree.node(node_of(tree, ino));
    if (n.is_dir()) fail(EISDIR);
    reply_content(req, *n.content, size, off);
  });
}

void op_statfs(fuse_req_t req, fuse_ino_t) {
  guarded(req, [&] {
    const auto tree_ref = tree_of(req);
    const Tree& tree = *tree_ref;
    struct statvfs s = {};
    s.f_bsize = 4096;
    s.f_frsize = 4096;
    s.f_blocks = (tree.attributes().backing_bytes + 4095) / 4096;
    s.f_files = tree.size();
    s.f_namemax = 255;
    s.f_flag = session_of(req).editor ? 0 : ST_RDONLY;
    fuse_reply_statfs(req, &s);
  });
}

// Writing operations. The mount is read-only, so the kernel usually refuses these before they
// arrive; answer them anyway.
void refuse(fuse_req_t req) {
  fuse_reply_err(req, EROFS);
}
void op_setattr(fuse_req_t req, fuse_ino_t, struct stat*, int, fuse_file_info*) {
  refuse(req);
}
void op_mknod(fuse_req_t req, fuse_ino_t, const char*, mode_t, dev_t) {
  refuse(req);
}
void op_mkdir(fuse_req_t req, fuse_ino_t, const char*, mode_t) {
  refuse(req);
}
void op_unlink(fuse_req_t req, fuse_ino_t, const char*) {
  refuse(req);
}
void op_rmdir(fuse_req_t req, fuse_ino_t, const char*) {
  refuse(req);
}
void op_symlink(fuse_req_t req, const char*, fuse_ino_t, const char*) {
  refuse(req);
}
void op_rename(fuse_req_t req, fuse_ino_t, const char*, fuse_ino_t, const char*, unsigned) {
  refuse(req);
}
void op_link(fuse_req_t req, fuse_ino_t, fuse_ino_t, const char*) {
  refuse(req);
}
void op_write(fuse_req_t req, fuse_ino_t, const char*, size_t, off_t, fuse_file_info*) {
  refuse(req);
}
void op_create(fuse_req_t req, fuse_ino_t, const char*, mode_t, fuse_file_info*) {
  refuse(req);
}
void op_setxattr(fuse_req_t req, fuse_ino_t, const char*, const char*, size_t, int) {
  refuse(req);
}
void op_removexattr(fuse_req_t req, fuse_ino_t, const char*) {
  refuse(req);
}
void op_fallocate(fuse_req_t req, fuse_ino_t, int, off_t, off_t, fuse_file_info*) {
  refuse(req);
}

// Extended attributes (model_xattrs.hpp): a size-0 request asks for the size; a buffer too small
// gets ERANGE.
void reply_xattr_bytes(fuse_req_t req, const std::string& bytes, size_t size) {
  if (size == 0)
    fuse_reply_xattr(req, bytes.size());
  else if (size < bytes.size())
    fuse_reply_err(req, ERANGE);
  else
    fuse_reply_buf(req, bytes.data(), bytes.size());
}
void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
  guarded(req, [&] {
    const auto tree_ref = tree_of(req);
    const Tree& tree = *tree_ref;
    const Tree::Index node = node_of(tree, ino);
    // Only user.* attributes exist here. For the others (security.selinux, system.posix_acl_*,
    // which `ls -l` asks for on every file) answer "not supported" rather than "no such
    // attribute": ls and libacl remember that per filesystem and stop asking, which makes the
    // first `ls -lR` of a large model several times faster (docs/BENCHMARKS.md).
    if (std::string_view(name).substr(0, 5) != "user.") fail(ENOTSUP);
    if (const Editor* editor = session_of(req).editor;
        editor && std::string_view(name) == kErrorXattr) {
      const auto reason = editor->error(tree.node(node).original);
      if (!reason || !tree.node(node).writable) fail(ENODATA);
      reply_xattr_bytes(req, *reason, size);
      return;
    }
    const std::string* value = tree.xattr(node, name);
    if (!value) fail(ENODATA);
    reply_xattr_bytes(req, *value, size);
  });
}
void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size) {
  guarded(req, [&] {
    const auto tree_ref = tree_of(req);
    const Tree& tree = *tree_ref;
    const Tree::Index node = node_of(tree, ino);
    std::string names = tree.xattr_names(node);
    if (const Editor* editor = session_of(req).editor;
        editor && tree.node(node).writable && editor->error(tree.node(node).original))
      names.append(kErrorXattr).push_back('\0');
    reply_xattr_bytes(req, names, size);
  });
}

fuse_lowlevel_ops read_only_operations() {
  fuse_lowlevel_ops ops = {};
  ops.init = op_init;
  ops.lookup = op_lookup;
  ops.forget = op_forget;
  ops.forget_multi = op_forget_multi;
  ops.getattr = op_getattr;
  ops.opendir = op_opendir;
  ops.readdir = op_readdir;
  ops.readdirplus = op_readdirplus;
  ops.open = op_open;
  ops.read = op_read;
  ops.statfs = op_statfs;
  ops.setattr = op_setattr;
  ops.mknod = op_mknod;
  ops.mkdir = op_mkdir;
  ops.unlink = op_unlink;
  ops.rmdir = op_rmdir;
  ops.symlink = op_symlink;
  ops.rename = op_rename;
  ops.link = op_link;
  ops.write = op_write;
  ops.create = op_create;
  ops.setxattr = op_setxattr;
  ops.removexattr = op_removexattr;
  ops.fallocate = op_fallocate;
  ops.getxattr = op_getxattr;
  ops.listxattr = op_listxattr;
  return ops;
}

}  // namespace ops

const fuse_lowlevel_ops& tree_operations() {
  static const fuse_lowlevel_ops ops = ops::read_only_operations();
  return ops;
}

}  // namespace gguffs
