// A content made on first use (size() or read()), e.g. hf/model.safetensors, whose header is
// only rendered when someone looks at the file, so mounting stays as fast as before.
#pragma once

#include <functional>
#include <memory>
#include <mutex>

#include "fs/tree/content.hpp"

namespace gguffs {

class LazyContent final : public FileContent {
 public:
  explicit LazyContent(std::function<std::shared_ptr<const FileContent>()> make)
      : make_(std::move(make)) {}

  uint64_t size() const override { return get().size(); }
  void read(uint64_t off, size_t len, ReadBuffer& out) const override { get().read(off, len, out); }

 private:
  const FileContent& get() const {
    std::call_once(once_, [this] { content_ = make_(); });
    return *content_;
  }

  std::function<std::shared_ptr<const FileContent>()> make_;
  mutable std::once_flag once_;
  mutable std::shared_ptr<const FileContent> content_;
};

}  // namespace gguffs
