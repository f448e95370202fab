#include "fs/tree/content_text.hpp"

namespace gguffs {

const std::string& LazyText::text() const {
  // An exception in render_ leaves the flag unset, so the next call retries.
  std::call_once(once_, [this] { text_ = render_(); });
  return text_;
}

void LazyText::read(uint64_t off, size_t len, ReadBuffer& out) const {
  const std::string& t = text();
  const size_t n = clamp(off, len, t.size());
  // The text lives as long as the tree, which outlives every request: no copy.
  if (n != 0) out.add_memory(t.data() + off, n);
}

}  // namespace gguffs
