#include "fs/tree/content_segmented.hpp"

#include <algorithm>

namespace gguffs {

Segmented::Segmented(std::vector<std::shared_ptr<const FileContent>> parts)
    : parts_(std::move(parts)) {
  starts_.reserve(parts_.size() + 1);
  uint64_t at = 0;
  for (const auto& part : parts_) {
    starts_.push_back(at);
    at += part->size();
  }
  starts_.push_back(at);
}

void Segmented::read(uint64_t off, size_t len, ReadBuffer& out) const {
  size_t left = clamp(off, len, size());
  // The part holding off: the last one starting at or before it.
  auto i =
      static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), off) - starts_.begin()) -
      1;
  for (; left != 0 && i < parts_.size(); ++i) {
    const uint64_t in_part = off - starts_[i];
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, starts_[i + 1] - off));
    parts_[i]->read(in_part, n, out);
    off += n;
    left -= n;
  }
}

bool Segmented::may_be_mapped() const {
  return std::all_of(parts_.begin(), parts_.end(),
                     [](const auto& part) { return part->may_be_mapped(); });
}

}  // namespace gguffs
