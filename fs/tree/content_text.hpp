// Text produced by a render function: run once, on the first size() or read(), then kept.
// The tree has thousands of these (one per metadata key and tensor); most are never read.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "fs/tree/content.hpp"

namespace gguffs {

class LazyText final : public FileContent {
 public:
  explicit LazyText(std::function<std::string()> render) : render_(std::move(render)) {}
  // A text whose size is known before it is rendered (render must return exactly that many
  // bytes): stat and ls -l then cost nothing, e.g. for a hash of a large tensor.
  LazyText(std::function<std::string()> render, uint64_t known_size)
      : render_(std::move(render)), known_size_(known_size) {}

  uint64_t size() const override { return known_size_ ? *known_size_ : text().size(); }
  void read(uint64_t off, size_t len, ReadBuffer& out) const override;
  // The whole text (rendered on first use).
  const std::string& text() const;

 private:
  std::function<std::string()> render_;
  std::optional<uint64_t> known_size_;
  mutable std::once_flag once_;
  mutable std::string text_;
};

}  // namespace gguffs
