// SHA-256 of a byte range of a source, with OpenSSL's libcrypto (EVP), read in 1 MiB pieces.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gguf/source/source.hpp"

namespace gguf {

// The lowercase hex digest (64 characters) of [offset, offset + size) of source, as sha256sum
// prints it. Throws FormatError(io) when the source holds fewer bytes.
std::string sha256_hex(const ByteSource& source, uint64_t offset, uint64_t size);
// The same for bytes in memory.
std::string sha256_hex(std::string_view bytes);

}  // namespace gguf
