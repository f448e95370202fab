// The parts of utf8.hpp that are not on the hot path.
#include "gguf/render/utf8.hpp"

namespace gguf {

namespace {

constexpr auto is_any_ascii = [](unsigned char) { return true; };
constexpr Utf8Screen kAnyText(is_any_ascii);

}  // namespace

size_t Utf8Screen::clean_prefix(std::string_view s) const {
  using namespace utf8_detail;
  uint32_t row = kAcceptRow;
  size_t end = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    row = kNextRow[row + classes_[static_cast<unsigned char>(s[i])]];
    if (row == kAcceptRow) end = i + 1;
    if (row == kRejectRow) break;
  }
  return end;
}

bool is_valid_utf8(std::string_view bytes) {
  return kAnyText.clean(bytes);
}

}  // namespace gguf
