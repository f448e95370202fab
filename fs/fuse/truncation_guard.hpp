// The model file may be truncated while mounted (a download restarted, a disk cleaned up). Its
// size was checked when it was parsed, but a splice reply from a file that has since shrunk is
// silently short, and the kernel would take that as the end of the file. This check turns it
// into EIO, and the FUSE layer warns once.
#pragma once

#include <system_error>

#include "fs/tree/read_buffer.hpp"

namespace gguffs {

// EIO for bytes of the model file that were there when it was parsed and are gone now.
class ModelFileShrank : public std::system_error {
 public:
  ModelFileShrank();
};

// Throws ModelFileShrank when a file piece of data reaches past the current end of its file (one
// fstat per distinct descriptor).
void require_file_pieces_present(const ReadBuffer& data);

// Prints the warning the first time it is called: to stderr and syslog (a daemon's stderr is
// /dev/null).
void warn_model_file_shrank();

}  // namespace gguffs
