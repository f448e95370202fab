#include "fs/cli/offline_commands.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <memory>
#include <system_error>
#include <vector>

#include <fmt/format.h>

namespace gguffs {

namespace {

constexpr size_t kChunk = 1 << 20;

Tree::Index find_or_throw(const Tree& tree, const std::string& path) {
  const auto i = tree.find(path);
  if (!i) throw PathError(path + ": no such file or directory in the model");
  return *i;
}

std::string mode_string(const struct stat& st) {
  std::string m = S_ISDIR(st.st_mode) ? "d" : "-";
  const char* rwx = "rwxrwxrwx";
  for (int bit = 8; bit >= 0; --bit) m += (st.st_mode & (1u << bit)) ? rwx[8 - bit] : '-';
  return m;
}

std::string user_name(uid_t uid) {
  if (const passwd* p = getpwuid(uid)) return p->pw_name;
  return std::to_string(uid);
}

std::string group_name(gid_t gid) {
  if (const group* g = getgrgid(gid)) return g->gr_name;
  return std::to_string(gid);
}

std::string long_iso_time(const struct timespec& t) {
  struct tm local = {};
  const time_t seconds = t.tv_sec;
  localtime_r(&seconds, &local);
  char text[32];
  const size_t n = std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &local);
  return std::string(text, n);
}

struct LongRow {
  std::string mode, links, user, group, size, time, name;
};

LongRow long_row(const Tree& tree, Tree::Index i, const std::string& name) {
  const struct stat st = tree.stat_of(i);
  return {mode_string(st),
          std::to_string(st.st_nlink),
          user_name(st.st_uid),
          group_name(st.st_gid),
          std::to_string(st.st_size),
          long_iso_time(st.st_mtim),
          name};
}

// Columns as GNU ls aligns them: counts and sizes to the right, names of owners to the left.
void print_rows(const std::vector<LongRow>& rows, std::FILE* out) {
  size_t w_links = 0, w_user = 0, w_group = 0, w_size = 0;
  for (const LongRow& r : rows) {
    w_links = std::max(w_links, r.links.size());
    w_user = std::max(w_user, r.user.size());
    w_group = std::max(w_group, r.group.size());
    w_size = std::max(w_size, r.size.size());
  }
  for (const LongRow& r : rows)
    fmt::print(out, "{} {:>{}} {:<{}} {:<{}} {:>{}} {} {}\n", r.mode, r.links, w_links, r.user,
               w_user, r.group, w_group, r.size, w_size, r.time, r.name);
}

void write_all(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "write");
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// Writes the pieces of one read; file pieces go through buffer (pread).
void write_pieces(const ReadBuffer& data, int fd, std::vector<uint8_t>& buffer) {
  for (const ReadPiece& piece : data.pieces()) {
    if (!piece.is_file()) {
      write_all(fd, piece.memory, piece.size);
      continue;
    }
    buffer.resize(std::max(buffer.size(), piece.size));
    size_t done = 0;
    while (done < piece.size) {
      const ssize_t n = pread(piece.fd, buffer.data() + done, piece.size - done,
                              static_cast<off_t>(piece.file_offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw std::system_error(errno, std::generic_category(), "pread");
      if (n == 0) throw std::system_error(EIO, std::generic_category(), "the model file shrank");
      done += static_cast<size_t>(n);
    }
    write_all(fd, buffer.data(), piece.size);
  }
}

}  // namespace

void list_path(const Tree& tree, const std::string& path, bool long_format, std::FILE* out) {
  const Tree::Index at = find_or_throw(tree, path);
  const Node& node = tree.node(at);
  if (!node.is_dir()) {
    if (long_format)
      print_rows({long_row(tree, at, path)}, out);
    else
      fmt::print(out, "{}\n", path);
    return;
  }
  if (!long_format) {
    for (const Tree::Index child : node.children) fmt::print(out, "{}\n", tree.node(child).name);
    return;
  }
  std::vector<LongRow> rows;
  uint64_t blocks = 0;  // 512-byte units; ls prints the total in 1 KiB units, rounded up
  for (const Tree::Index child : node.children) {
    rows.push_back(long_row(tree, child, tree.node(child).name));
    blocks += static_cast<uint64_t>(tree.stat_of(child).st_blocks);
  }
  fmt::print(out, "total {}\n", (blocks + 1) / 2);
  print_rows(rows, out);
}

void cat_path(const Tree& tree, const std::string& path, int fd) {
  const Node& node = tree.node(find_or_throw(tree, path));
  if (node.is_dir()) throw PathError(path + ": is a directory");
  const uint64_t size = node.content->size();
  std::vector<uint8_t> buffer;
  for (uint64_t off = 0; off < size; off += kChunk) {
    ReadBuffer data(kChunk);  // scratch room for decoded contents
    node.content->read(off, kChunk, data);
    if (data.size() == 0) break;
    write_pieces(data, fd, buffer);
  }
}

}  // namespace gguffs
