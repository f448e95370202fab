#include "fs/fuse/truncation_guard.hpp"

#include <sys/stat.h>
#include <syslog.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <system_error>

namespace gguffs {

namespace {

std::atomic<bool> warned{false};

}  // namespace

ModelFileShrank::ModelFileShrank()
    : std::system_error(EIO, std::generic_category(), "the model file shrank") {}

void warn_model_file_shrank() {
  if (warned.exchange(true)) return;
  static const char kMessage[] =
      "the model file shrank while mounted; reads of the missing bytes fail with EIO "
      "(remount after replacing the file)";
  std::fprintf(stderr, "gguffs: warning: %s\n", kMessage);
  syslog(LOG_WARNING, "gguffs: %s", kMessage);
}

void require_file_pieces_present(const ReadBuffer& data) {
  int checked_fd = -1;
  off_t size = 0;
  for (const ReadPiece& piece : data.pieces()) {
    if (!piece.is_file()) continue;
    if (piece.fd != checked_fd) {
      struct stat st;
      if (fstat(piece.fd, &st) != 0) throw std::system_error(errno, std::generic_category());
      checked_fd = piece.fd;
      size = st.st_size;
    }
    if (piece.file_offset + piece.size > static_cast<uint64_t>(size)) throw ModelFileShrank();
  }
}

}  // namespace gguffs
