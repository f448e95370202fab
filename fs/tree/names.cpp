#include "fs/tree/names.hpp"

#include <fmt/format.h>

namespace gguffs::names {

namespace {

constexpr char kHex[] = "0123456789ABCDEF";

bool needs_escape(unsigned char c) {
  return c == '/' || c == '%' || c < 0x20 || c == 0x7F;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Length of the unit of encoded text starting at i: a %HH escape, a whole valid UTF-8 sequence,
// or a single byte. Cutting between units never breaks a character or an escape.
size_t unit_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0)
    return 3;
  size_t n = c >= 0xF0 && c < 0xF8 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  if (n > 1 && c >= 0xF8) n = 1;
  if (i + n > s.size()) return 1;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
  return n;
}

// The longest prefix of encoded made of whole units and at most limit bytes long.
std::string_view cut(std::string_view encoded, size_t limit) {
  size_t end = 0;
  while (end < encoded.size()) {
    const size_t n = unit_length(encoded, end);
    if (end + n > limit) break;
    end += n;
  }
  return encoded.substr(0, end);
}

}  // namespace

uint64_t fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string encode(std::string_view name) {
  if (name.empty()) return "%";
  if (name == ".") return "%2E";
  if (name == "..") return "%2E%2E";
  std::string out;
  out.reserve(name.size());
  for (unsigned char c : name) {
    if (needs_escape(c)) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (out.size() <= kNameMax) return out;
  const auto hash = static_cast<uint32_t>(fnv1a64(name));
  return with_suffix(out, fmt::format("~{:08x}", hash));
}

std::optional<std::string> decode(std::string_view file_name) {
  if (file_name == "%") return std::string();
  std::string out;
  out.reserve(file_name.size());
  for (size_t i = 0; i < file_name.size(); ++i) {
    if (file_name[i] != '%') {
      out += file_name[i];
      continue;
    }
    if (i + 2 >= file_name.size()) return std::nullopt;
    const int hi = hex_value(file_name[i + 1]), lo = hex_value(file_name[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

std::string with_suffix(std::string_view name, std::string_view suffix) {
  const size_t room = suffix.size() < kNameMax ? kNameMax - suffix.size() : 0;
  std::string out(cut(name, room));
  out += suffix;
  return out;
}

}  // namespace gguffs::names
