// Text produced by a render function: run once, on the first size() or read(), then kept.
// The tree has thousands of these (one per metadata key and tensor); most are never read.
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include "fs/tree/content.hpp"

namespace gguffs {

class LazyText final : public FileContent {
 public:
  explicit LazyText(std::function<std::string()> render) : render_(std::move(render)) {}

  uint64_t size() const override { return text().size(); }
  void read(uint64_t off, size_t len, ReadBuffer& out) const override;
  // The whole text (rendered on first use).
  const std::string& text() const;

 private:
  std::function<std::string()> render_;
  mutable std::once_flag once_;
  mutable std::string text_;
};

}  // namespace gguffs
