// The program's exit codes, stable so scripts can tell failures apart.
//
//   0  ok (also: unmounted by SIGINT/SIGTERM or fusermount3 -u)
//   1  internal or other error; for `diff`: the models differ (as diff(1) does)
//   2  usage error (bad option, missing argument, `-o rw`)
//   3  the model cannot be opened or read (io)
//   4  the file is not GGUF (no magic: empty file, Git-LFS pointer, another format)
//   5  unsupported GGUF version
//   6  malformed GGUF file
//   7  split model problem (a shard is missing or inconsistent)
//   8  mount point problem (missing, not a directory, not empty, already a mount point)
//   9  FUSE unavailable (no /dev/fuse, or the mount itself failed)
//  10  `check --data`: tensor data llama.cpp would refuse (NaN/Inf, invalid block, missing bytes)
//  11  remote model not found (HTTP 404)
//  12  remote model access denied (HTTP 401 or 403)
//  13  remote server unusable (no Range support, bad answers, network or TLS failure)
//  14  an edit overlay made for another base model, or an unreadable overlay
#pragma once

#include "gguf/errors.hpp"

namespace gguffs {

enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,
  kExitDifferent = 1,  // `gguffs diff`: the two models differ
  kExitUsage = 2,
  kExitIo = 3,
  kExitNotGguf = 4,
  kExitUnsupportedVersion = 5,
  kExitMalformed = 6,
  kExitSplit = 7,
  kExitMountPoint = 8,
  kExitFuse = 9,
  kExitInvalidData = 10,
  kExitRemoteNotFound = 11,
  kExitRemoteDenied = 12,
  kExitRemoteUnusable = 13,
  kExitOverlay = 14,
};

constexpr ExitCode exit_code_for(gguf::FormatError::Kind kind) {
  switch (kind) {
    case gguf::FormatError::Kind::io:
      return kExitIo;
    case gguf::FormatError::Kind::not_gguf:
      return kExitNotGguf;
    case gguf::FormatError::Kind::unsupported_version:
      return kExitUnsupportedVersion;
    case gguf::FormatError::Kind::malformed:
      return kExitMalformed;
    case gguf::FormatError::Kind::split:
      return kExitSplit;
    case gguf::FormatError::Kind::remote_not_found:
      return kExitRemoteNotFound;
    case gguf::FormatError::Kind::remote_denied:
      return kExitRemoteDenied;
    case gguf::FormatError::Kind::remote_unusable:
      return kExitRemoteUnusable;
  }
  return kExitInternal;
}

}  // namespace gguffs
