// Helpers the operation tables share (fuse_ops.cpp, edit_ops.cpp).
#pragma once

#include <memory>
#include <new>
#include <string>
#include <system_error>

#include "fs/fuse/fuse_ops.hpp"
#include "fs/tree/tree.hpp"

namespace gguffs::ops {

Session& session_of(fuse_req_t req);
std::shared_ptr<const Tree> tree_of(fuse_req_t req);

[[noreturn]] inline void fail(int err) {
  throw std::system_error(err, std::generic_category());
}

// Runs body; on an exception replies with the matching errno. body must reply itself and must
// not throw after replying (replies come last).
template <typename Body>
void guarded(fuse_req_t req, Body&& body) noexcept {
  int err;
  try {
    body();
    return;
  } catch (const std::system_error& e) {
    err = e.code().value() > 0 ? e.code().value() : EIO;
  } catch (const std::bad_alloc&) {
    err = ENOMEM;
  } catch (...) {
    err = EIO;
  }
  fuse_reply_err(req, err);
}

Tree::Index node_of(const Tree& tree, fuse_ino_t ino);

// The xattr holding why the last write to a metadata/ file was refused.
inline constexpr const char* kErrorXattr = "user.gguf.error";
fuse_entry_param entry_of(const Session& session, const Tree& tree, Tree::Index i);
// Replies to a read with bytes [off, off + size) of content.
void reply_content(fuse_req_t req, const FileContent& content, size_t size, off_t off);
void reply_xattr_bytes(fuse_req_t req, const std::string& bytes, size_t size);

// The read-only table's operations the editable table keeps.
void op_init(void* userdata, fuse_conn_info* conn);
void op_forget(fuse_req_t req, fuse_ino_t, uint64_t);
void op_forget_multi(fuse_req_t req, size_t, fuse_forget_data*);
void op_opendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi);
void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info*);
void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info*);
void op_statfs(fuse_req_t req, fuse_ino_t);
void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size);
void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
fuse_lowlevel_ops read_only_operations();

}  // namespace gguffs::ops
