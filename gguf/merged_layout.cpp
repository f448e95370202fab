#include "gguf/merged_layout.hpp"

#include <algorithm>
#include <cstring>

#include "gguf/byte_order.hpp"
#include "gguf/errors.hpp"

namespace gguf {

namespace {

using Kind = FormatError::Kind;

// Appends v in the file's byte order.
template <class T>
void put(std::string& out, T v, bool big_endian) {
  if (big_endian) v = byte_swap(v);
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);
  out.append(bytes, sizeof v);
}

// Bytes the entry takes in its file: key (length + bytes), type id, value.
uint64_t encoded_size(const MetadataEntry& e) {
  return 8 + e.key.size() + 4 + e.value.encoded_size();
}

uint64_t checked_sum(uint64_t a, uint64_t b, const std::string& file) {
  uint64_t out;
  if (__builtin_add_overflow(a, b, &out))
    throw FormatError(Kind::split, file, std::nullopt, "the merged file would exceed 2^64 bytes");
  return out;
}

// The most zero padding kept in the header string; more becomes a zeros segment.
constexpr uint64_t kMaxHeaderPadding = 4096;

uint64_t align_up(uint64_t x, uint64_t alignment, const std::string& file) {
  const uint64_t r = x % alignment;
  return r == 0 ? x : checked_sum(x, alignment - r, file);
}

void check_byte_orders(const std::vector<ModelPtr>& shards) {
  for (const ModelPtr& m : shards) {
    if (m->big_endian != shards.front()->big_endian) {
      throw FormatError(Kind::split, m->name(), std::nullopt,
                        std::string("this shard is ") +
                            (m->big_endian ? "big-endian" : "little-endian") +
                            " but the first shard is not: the shards cannot be merged");
    }
  }
}

void append_tensor_info(std::string& out, const TensorInfo& t, uint64_t offset, bool be) {
  put<uint64_t>(out, t.name.size(), be);
  out.append(t.name);
  put<uint32_t>(out, t.n_dims, be);
  for (uint32_t d = 0; d < t.n_dims; ++d) put<uint64_t>(out, t.ne[d], be);
  put<uint32_t>(out, t.type_id, be);
  put<uint64_t>(out, offset, be);
}

}  // namespace

bool is_split_key(std::string_view key) {
  return key.starts_with("split.");
}

MergedMetadata merged_metadata(const Model& first) {
  MergedMetadata out;
  for (const MetadataEntry& e : first.metadata) {
    if (is_split_key(e.key)) continue;
    // Copied as encoded in the shard: exact, whatever the type or byte order.
    out.encoded.append(reinterpret_cast<const char*>(first.header_bytes) + e.file_offset,
                       encoded_size(e));
    ++out.count;
  }
  out.alignment = first.alignment;
  return out;
}

MergedLayout merge_layout(const std::vector<ModelPtr>& shards) {
  if (shards.empty()) throw std::invalid_argument("merge_layout: no shards");
  return merge_layout(shards, merged_metadata(*shards.front()));
}

namespace {

// The bytes in front of the pairs: magic, version, tensor count, pair count.
constexpr size_t kHeaderPrefix = 4 + 4 + 8 + 8;

size_t tensor_info_bytes(const std::vector<ModelPtr>& shards) {
  size_t infos = 0;
  for (const ModelPtr& m : shards)
    for (const TensorInfo& t : m->tensors) infos += 8 + t.name.size() + 4 + 8 * t.n_dims + 4 + 8;
  return infos;
}

}  // namespace

size_t merged_header_capacity(const std::vector<ModelPtr>& shards, size_t pairs_bytes) {
  return kHeaderPrefix + pairs_bytes + tensor_info_bytes(shards) + kMaxHeaderPadding;
}

MergedLayout merge_layout(const std::vector<ModelPtr>& shards, MergedMetadata metadata) {
  if (shards.empty()) throw std::invalid_argument("merge_layout: no shards");
  check_byte_orders(shards);
  const Model& first = *shards.front();
  const std::string& name = first.name();
  MergedLayout layout;
  layout.big_endian = first.big_endian;
  layout.alignment = metadata.alignment;
  const bool be = layout.big_endian;

  // Tensor offsets in one data section, packed in shard order.
  uint64_t data_size = 0;
  for (const ModelPtr& m : shards) {
    for (const TensorInfo& t : m->tensors) {
      layout.tensor_offsets.push_back(data_size);
      data_size = align_up(checked_sum(data_size, t.bytes, name), layout.alignment, name);
    }
  }
  layout.n_tensors = layout.tensor_offsets.size();

  // One allocation for the whole header, the pairs' own when it is large enough (an edited
  // Llama-3 vocabulary is 8 MB per edit; fresh pages cost more than the copy).
  layout.n_kv = metadata.count;
  std::string prefix;
  prefix.append("GGUF", 4);
  put<uint32_t>(prefix, 3, be);
  put<uint64_t>(prefix, layout.n_tensors, be);
  put<uint64_t>(prefix, layout.n_kv, be);
  layout.header = std::move(metadata.encoded);
  layout.header.reserve(merged_header_capacity(shards, layout.header.size()));
  layout.header.insert(0, prefix);
  size_t k = 0;
  for (const ModelPtr& m : shards) {
    for (const TensorInfo& t : m->tensors)
      append_tensor_info(layout.header, t, layout.tensor_offsets[k++], be);
  }
  layout.data_offset = align_up(layout.header.size(), layout.alignment, name);
  // general.alignment may be any power of two up to 2^31: padding beyond a page is served as a
  // zeros segment, not held in memory (two 200-byte shards once took 2 GiB here).
  const uint64_t padded_header =
      std::min<uint64_t>(layout.data_offset, layout.header.size() + kMaxHeaderPadding);
  layout.header.resize(padded_header, '\0');
  layout.size = checked_sum(layout.data_offset, data_size, name);

  // Where every byte comes from.
  layout.segments.push_back({MergedSegment::Kind::header, 0, padded_header, 0, 0, 0});
  if (padded_header < layout.data_offset) {
    layout.segments.push_back(
        {MergedSegment::Kind::zeros, padded_header, layout.data_offset - padded_header, 0, 0, 0});
  }
  uint64_t at = layout.data_offset;
  k = 0;
  for (uint32_t shard = 0; shard < shards.size(); ++shard) {
    for (const TensorInfo& t : shards[shard]->tensors) {
      at = layout.data_offset + layout.tensor_offsets[k++];
      if (t.bytes != 0) {
        layout.segments.push_back(
            {MergedSegment::Kind::shard, at, t.bytes, shard, t.file_offset, t.bytes_present});
      }
      const uint64_t end = at + t.bytes;
      const uint64_t padded = align_up(end, layout.alignment, name);
      if (padded != end)
        layout.segments.push_back({MergedSegment::Kind::zeros, end, padded - end, 0, 0, 0});
      at = padded;
    }
  }
  return layout;
}

namespace {

class MergedSource final : public ByteSource {
 public:
  MergedSource(std::vector<ModelPtr> shards, std::shared_ptr<const MergedLayout> layout,
               std::string name)
      : shards_(std::move(shards)), layout_(std::move(layout)), name_(std::move(name)) {}

  uint64_t size() const override { return layout_->size; }
  const std::string& name() const override { return name_; }
  struct timespec mtime() const override {
    return shards_.front()->source->mtime();
  }

  // The header is in memory for the source's whole life: the parser reads it in place.
  std::shared_ptr<const void> lend_prefix(const uint8_t** data, size_t* size) const override {
    *data = reinterpret_cast<const uint8_t*>(layout_->header.data());
    *size = layout_->header.size();
    return layout_;
  }

  size_t read_at(uint64_t offset, void* dst, size_t len) const override {
    const auto& segs = layout_->segments;
    auto* out = static_cast<char*>(dst);
    size_t done = 0;
    auto it = std::upper_bound(segs.begin(), segs.end(), offset,
                               [](uint64_t off, const MergedSegment& s) { return off < s.start; });
    if (it == segs.begin()) return 0;
    for (--it; done < len && it != segs.end(); ++it) {
      const uint64_t at = offset + done;
      if (at < it->start || at >= it->start + it->size) continue;
      const uint64_t in = at - it->start;
      const size_t n = static_cast<size_t>(std::min<uint64_t>(len - done, it->size - in));
      switch (it->kind) {
        case MergedSegment::Kind::header:
          std::memcpy(out + done, layout_->header.data() + in, n);
          break;
        case MergedSegment::Kind::zeros:
          std::memset(out + done, 0, n);
          break;
        case MergedSegment::Kind::shard: {
          const auto& src = *shards_.at(it->shard)->source;
          if (src.read_at(it->shard_offset + in, out + done, n) != n) {
            throw FormatError(Kind::io, src.name(), it->shard_offset + in,
                              "the shard ends before this tensor's data");
          }
          break;
        }
      }
      done += n;
    }
    return done;
  }

 private:
  std::vector<ModelPtr> shards_;
  std::shared_ptr<const MergedLayout> layout_;
  std::string name_;
};

}  // namespace

std::shared_ptr<ByteSource> merged_source(std::vector<ModelPtr> shards,
                                          std::shared_ptr<const MergedLayout> layout,
                                          std::string name) {
  return std::make_shared<MergedSource>(std::move(shards), std::move(layout), std::move(name));
}

}  // namespace gguf
