#include "fs/tree/content_text.hpp"

#include <stdexcept>

namespace gguffs {

const std::string& LazyText::text() const {
  // An exception in render_ leaves the flag unset, so the next call retries.
  std::call_once(once_, [this] {
    std::string t = render_();
    if (known_size_ && t.size() != *known_size_) throw std::logic_error("text of the wrong size");
    text_ = std::move(t);
  });
  return text_;
}

void LazyText::read(uint64_t off, size_t len, ReadBuffer& out) const {
  const std::string& t = text();
  const size_t n = clamp(off, len, t.size());
  // The text lives as long as the tree, which outlives every request: no copy.
  if (n != 0) out.add_memory(t.data() + off, n);
}

}  // namespace gguffs
