// A file made of other contents one after another, e.g. model.gguf of a split model: a header
// in memory followed by data ranges from several shard files.
#pragma once

#include <memory>
#include <vector>

#include "fs/tree/content.hpp"

namespace gguffs {

class Segmented final : public FileContent {
 public:
  explicit Segmented(std::vector<std::shared_ptr<const FileContent>> parts);

  uint64_t size() const override { return starts_.back(); }
  void read(uint64_t off, size_t len, ReadBuffer& out) const override;
  bool may_be_mapped() const override;

 private:
  std::vector<std::shared_ptr<const FileContent>> parts_;
  std::vector<uint64_t> starts_;  // starts_[i] = offset of parts_[i]; last = total size
};

}  // namespace gguffs
