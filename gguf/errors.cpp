#include "gguf/errors.hpp"

#include <fmt/format.h>

namespace gguf {

namespace {
std::string render(const std::string& file, std::optional<uint64_t> offset,
                   const std::string& msg) {
  if (offset) return fmt::format("{}: byte {}: {}", file, *offset, msg);
  return fmt::format("{}: {}", file, msg);
}
}  // namespace

FormatError::FormatError(Kind kind, std::string file, std::optional<uint64_t> offset,
                         std::string message)
    : std::runtime_error(render(file, offset, message)),
      kind_(kind),
      file_(std::move(file)),
      offset_(offset),
      message_(std::move(message)) {}

}  // namespace gguf
