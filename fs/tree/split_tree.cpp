#include "fs/tree/split_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "fs/tree/content_range.hpp"
#include "fs/tree/content_segmented.hpp"
#include "gguf/merged_layout.hpp"

namespace gguffs {

namespace {

// The merged header, straight from the layout (which the content keeps alive).
class HeaderBytes final : public FileContent {
 public:
  explicit HeaderBytes(std::shared_ptr<const gguf::MergedLayout> layout)
      : layout_(std::move(layout)) {}
  uint64_t size() const override { return layout_->header.size(); }
  void read(uint64_t off, size_t len, ReadBuffer& out) const override {
    const size_t n = clamp(off, len, layout_->header.size());
    if (n != 0) out.add_memory(layout_->header.data() + off, n);
  }

 private:
  std::shared_ptr<const gguf::MergedLayout> layout_;
};

// Zero padding between tensors, served from one static page.
class Zeros final : public FileContent {
 public:
  explicit Zeros(uint64_t size) : size_(size) {}
  uint64_t size() const override { return size_; }
  void read(uint64_t off, size_t len, ReadBuffer& out) const override {
    static const uint8_t kZeroPage[64 * 1024] = {};
    for (size_t left = clamp(off, len, size_); left != 0;) {
      const size_t n = std::min(left, sizeof kZeroPage);
      out.add_memory(kZeroPage, n);
      left -= n;
    }
  }

 private:
  uint64_t size_;
};

}  // namespace

std::shared_ptr<const FileContent> merged_file_content(
    const std::vector<gguf::ModelPtr>& shards, std::shared_ptr<const gguf::MergedLayout> layout) {
  std::vector<std::shared_ptr<const FileContent>> parts;
  parts.reserve(layout->segments.size());
  for (const gguf::MergedSegment& s : layout->segments) {
    switch (s.kind) {
      case gguf::MergedSegment::Kind::header:
        parts.push_back(std::make_shared<HeaderBytes>(layout));
        break;
      case gguf::MergedSegment::Kind::zeros:
        parts.push_back(std::make_shared<Zeros>(s.size));
        break;
      case gguf::MergedSegment::Kind::shard:
        parts.push_back(std::make_shared<ByteRange>(shards.at(s.shard)->source, s.shard_offset,
                                                    s.size, s.present));
        break;
    }
  }
  return std::make_shared<Segmented>(std::move(parts));
}

std::shared_ptr<const FileContent> model_file_content(const gguf::ModelSet& models) {
  if (models.is_split() && models.merged) return merged_file_content(models.shards, models.merged);
  const auto& source = models.first()->source;
  return std::make_shared<ByteRange>(source, 0, source->size(), source->size());
}

std::string shard_info_lines(const gguf::ModelSet& models, size_t shard) {
  if (!models.is_split()) return {};
  const std::string file =
      std::filesystem::path(models.shards.at(shard)->name()).filename().string();
  return fmt::format("shard: {}\nfile: {}\n", shard + 1, file);
}

struct timespec latest_mtime(const gguf::ModelSet& models) {
  struct timespec latest = models.first()->source->mtime();
  for (const gguf::ModelPtr& m : models.shards) {
    const struct timespec t = m->source->mtime();
    if (t.tv_sec > latest.tv_sec || (t.tv_sec == latest.tv_sec && t.tv_nsec > latest.tv_nsec))
      latest = t;
  }
  return latest;
}

}  // namespace gguffs
