#include "gguf/edit/overlay.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "gguf/errors.hpp"
#include "gguf/parser.hpp"

namespace gguf {

namespace {

constexpr const char* kSize = "gguffs.overlay.base_size";
constexpr const char* kHash = "gguffs.overlay.base_sha256";
constexpr const char* kDeleted = "gguffs.overlay.deleted";

void put(std::string& out, uint64_t v, uint32_t size, bool be) {
  for (uint32_t i = 0; i < size; ++i) {
    const uint32_t shift = be ? 8 * (size - 1 - i) : 8 * i;
    out.push_back(static_cast<char>((v >> shift) & 0xFF));
  }
}

std::string sha256_hex(const void* data, size_t size) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data, size, digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed");
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

bool same(const EditedEntry& a, const EditedEntry& b) {
  return a.key == b.key && a.type == b.type && a.value == b.value;
}

}  // namespace

BaseIdentity base_identity(const ModelSet& set) {
  const Model& first = *set.first();
  BaseIdentity id;
  id.size = set.total_file_size();
  const size_t header = static_cast<size_t>(std::min<uint64_t>(first.data_offset, first.file_size));
  std::string bytes(header, '\0');
  if (first.source->read_at(0, bytes.data(), header) != header)
    throw OverlayError(first.name() + ": cannot read its header for the overlay's identity");
  id.sha256 = sha256_hex(bytes.data(), bytes.size());
  return id;
}

Overlay diff_overlay(const ModelSet& base, const std::vector<EditedEntry>& base_entries,
                     const std::vector<EditedEntry>& current) {
  Overlay o;
  o.base = base_identity(base);
  std::set<std::string> now;
  for (const EditedEntry& e : current) now.insert(e.key);
  for (const EditedEntry& e : base_entries)
    if (now.count(e.key) == 0) o.deleted.push_back(e.key);
  for (const EditedEntry& e : current) {
    bool unchanged = false;
    for (const EditedEntry& b : base_entries) unchanged = unchanged || same(e, b);
    if (!unchanged) o.pairs.push_back(e);
  }
  return o;
}

std::vector<EditedEntry> apply_overlay(const ModelSet& base,
                                       const std::vector<EditedEntry>& base_entries,
                                       const Overlay& overlay) {
  const BaseIdentity id = base_identity(base);
  if (!(id == overlay.base)) {
    throw OverlayError(fmt::format(
        "the overlay was made for another model (base size {}, header SHA-256 {}; this model: "
        "size {}, {})",
        overlay.base.size, overlay.base.sha256.substr(0, 16), id.size, id.sha256.substr(0, 16)));
  }
  const std::set<std::string> deleted(overlay.deleted.begin(), overlay.deleted.end());
  std::vector<EditedEntry> out;
  std::vector<bool> used(overlay.pairs.size(), false);
  for (const EditedEntry& e : base_entries) {
    if (deleted.count(e.key) != 0) continue;
    out.push_back(e);
    for (size_t k = 0; k < overlay.pairs.size(); ++k) {
      if (!used[k] && overlay.pairs[k].key == e.key) {
        out.back() = overlay.pairs[k];
        used[k] = true;
      }
    }
  }
  for (size_t k = 0; k < overlay.pairs.size(); ++k)
    if (!used[k]) out.push_back(overlay.pairs[k]);
  return out;
}

Overlay read_overlay(const std::string& path, bool big_endian) {
  ModelPtr m;
  try {
    m = parse_file(path);
  } catch (const FormatError& e) {
    throw OverlayError(std::string("unreadable overlay: ") + e.what());
  }
  const auto fail = [&](const std::string& what) -> OverlayError {
    return OverlayError(fmt::format("{}: not a gguffs overlay ({})", path, what));
  };
  if (m->metadata.size() < 3 || m->metadata[0].key != kSize || m->metadata[1].key != kHash ||
      m->metadata[2].key != kDeleted)
    throw fail("it does not start with the gguffs.overlay.* keys");
  if (m->big_endian != big_endian) throw fail("its byte order is not the model's");
  const Value& size = m->metadata[0].value;
  const Value& hash = m->metadata[1].value;
  const Value& deleted = m->metadata[2].value;
  if (size.type != ValueType::UINT64 || hash.type != ValueType::STRING ||
      deleted.type != ValueType::ARRAY || deleted.array.element_type != ValueType::STRING)
    throw fail("its gguffs.overlay.* keys have the wrong types");
  Overlay o;
  o.base.size = size.bits;
  o.base.sha256 = std::string(hash.str);
  deleted.array.for_each([&](uint64_t, const Value& v) {
    o.deleted.emplace_back(v.str);
    return true;
  });
  for (size_t k = 3; k < m->metadata.size(); ++k) {
    const MetadataEntry& e = m->metadata[k];
    o.pairs.push_back(
        EditedEntry::make(std::string(e.key), e.value.type, std::string(m->stored_value(e))));
  }
  return o;
}

void write_overlay(const std::string& path, const Overlay& overlay, bool be) {
  std::string file("GGUF", 4);
  put(file, 3, 4, be);
  put(file, 0, 8, be);
  put(file, 3 + overlay.pairs.size(), 8, be);
  std::string deleted;
  put(deleted, static_cast<uint32_t>(ValueType::STRING), 4, be);
  put(deleted, overlay.deleted.size(), 8, be);
  for (const std::string& k : overlay.deleted) {
    put(deleted, k.size(), 8, be);
    deleted += k;
  }
  std::string hash;
  put(hash, overlay.base.sha256.size(), 8, be);
  hash += overlay.base.sha256;
  std::string size;
  put(size, overlay.base.size, 8, be);
  append_encoded_pair(file, EditedEntry::make(kSize, ValueType::UINT64, size), be);
  append_encoded_pair(file, EditedEntry::make(kHash, ValueType::STRING, hash), be);
  append_encoded_pair(file, EditedEntry::make(kDeleted, ValueType::ARRAY, deleted), be);
  for (const EditedEntry& e : overlay.pairs) append_encoded_pair(file, e, be);
  file.resize((file.size() + 31) / 32 * 32, '\0');  // the data section starts aligned

  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw OverlayError(fmt::format("{}: {}", tmp, std::strerror(errno)));
  size_t done = 0;
  while (done < file.size()) {
    const ssize_t n = ::write(fd, file.data() + done, file.size() - done);
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      throw OverlayError(fmt::format("{}: {}", tmp, std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0)
    throw OverlayError(fmt::format("{}: {}", tmp, std::strerror(errno)));
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    throw OverlayError(fmt::format("{}: {}", path, std::strerror(errno)));
}

}  // namespace gguf
