#include "gguf/stats/sha256.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "gguf/errors.hpp"

namespace gguf {

namespace {

struct ContextFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

constexpr size_t kPiece = 1 << 20;

std::string hex_of(const unsigned char* digest, unsigned int length) {
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i)
    fmt::format_to(std::back_inserter(hex), "{:02x}", digest[i]);
  return hex;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL: SHA-256 failed");
  return hex_of(digest, length);
}

std::string sha256_hex(const ByteSource& source, uint64_t offset, uint64_t size) {
  std::unique_ptr<EVP_MD_CTX, ContextFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL: cannot start a SHA-256 digest");
  std::vector<uint8_t> buffer(static_cast<size_t>(std::min<uint64_t>(size, kPiece)));
  for (uint64_t done = 0; done < size;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kPiece, size - done));
    if (source.read_at(offset + done, buffer.data(), n) != n)
      throw FormatError(FormatError::Kind::io, source.name(), offset + done,
                        "the file ends inside the range being hashed");
    if (EVP_DigestUpdate(ctx.get(), buffer.data(), n) != 1)
      throw std::runtime_error("OpenSSL: SHA-256 update failed");
    done += n;
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1)
    throw std::runtime_error("OpenSSL: SHA-256 final failed");
  return hex_of(digest, length);
}

}  // namespace gguf
