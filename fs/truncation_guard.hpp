// The model file may be truncated while mounted (a download restarted, a disk cleaned up). Its
// size was checked when it was parsed, but a splice reply from a file that has since shrunk is
// silently short, and the kernel would take that as the end of the file. This check turns it
// into EIO and warns once.
#pragma once

#include "fs/read_buffer.hpp"

namespace gguffs {

// Throws std::system_error(EIO) when a file piece of data reaches past the current end of its
// file (one fstat per distinct descriptor). The first time, also prints one warning to stderr and
// syslog (a daemon's stderr is /dev/null).
void require_file_pieces_present(const ReadBuffer& data);

}  // namespace gguffs
