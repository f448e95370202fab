// Turning metadata keys and tensor names (arbitrary bytes) into file names that are valid,
// visible, unique and reversible where they can be.
//
// The encoding, like URL encoding with uppercase hex:
//   '/' -> %2F, '%' -> %25, bytes below 0x20 and 0x7F -> %HH; every other byte is kept (so UTF-8
//   names such as Cyrillic ones stay readable).
//   "."  -> %2E and ".." -> %2E%2E, so they are not taken for the directory links.
//   ""   -> "%" alone: a real '%' is always encoded as %25, so a lone '%' cannot mean anything
//           else.
//   A result longer than 255 bytes (NAME_MAX) is cut to 246 bytes, never inside a %HH escape or
//   a UTF-8 sequence, and "~" + 8 hex digits (the low 32 bits of the FNV-1a 64 hash of the full
//   original name) are appended. Such names cannot be decoded.
// Two entries with the same encoded name are told apart by the tree builder with "~2", "~3"...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gguffs::names {

inline constexpr size_t kNameMax = 255;

// FNV-1a, 64 bits.
uint64_t fnv1a64(std::string_view bytes);

// The file name for a key or tensor name (see above).
std::string encode(std::string_view name);

// The original name of an encoded one, or nullopt when it is not a valid encoding (a '%' not
// followed by two hex digits, other than the lone "%"). A cut name decodes to its cut text.
std::optional<std::string> decode(std::string_view file_name);

// name + suffix ("~2"), cutting name (on a UTF-8 and escape boundary) so the result fits kNameMax.
std::string with_suffix(std::string_view name, std::string_view suffix);

}  // namespace gguffs::names
