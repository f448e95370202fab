// The one error type of the format library. Everything that cannot be read as GGUF throws a
// FormatError; the program maps its kind to an exit code, the FUSE layer never sees one (the
// model is parsed before mounting).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace gguf {

class FormatError : public std::runtime_error {
 public:
  enum class Kind {
    io,                   // the file cannot be opened or read
    not_gguf,             // no GGUF magic (empty file, Git-LFS pointer, another format)
    unsupported_version,  // version 1, 0 or above 3
    malformed,            // a header, metadata pair or tensor info does not fit or is invalid
    split,                // a shard of a split model is missing or inconsistent
    remote_not_found,     // a URL answered 404
    remote_denied,        // a URL answered 401 or 403
    remote_unusable,      // a server without Range support, bad answers, network failure
  };

  // Renders as "<file>: byte <offset>: <message>", or "<file>: <message>" without an offset.
  FormatError(Kind kind, std::string file, std::optional<uint64_t> offset, std::string message);

  Kind kind() const { return kind_; }
  const std::string& file() const { return file_; }
  std::optional<uint64_t> offset() const { return offset_; }
  const std::string& message() const { return message_; }

 private:
  Kind kind_;
  std::string file_;
  std::optional<uint64_t> offset_;
  std::string message_;
};

}  // namespace gguf
