// One GGUF v3 file that merges the shards of a split model, described rather than written: the
// header bytes (kept in memory) and, for every byte after them, where it comes from. The
// filesystem serves model.gguf from this; nothing is copied.
//
// The header: the first shard's metadata without the split.* keys, each entry copied byte for
// byte from the shard; the tensor infos of every shard in shard order, with offsets packed for
// one data section as gguf.cpp demands (each tensor at the previous one's end rounded up to the
// alignment); zero padding up to the data section. The alignment is the first shard's
// (general.alignment when valid, else 32); every tensor is followed by zeros up to it, the last
// one too, as gguf.cpp writes files. Shards written on a big-endian machine give a big-endian
// merged file (their metadata is copied as it is); mixed byte orders are refused.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gguf/model.hpp"

namespace gguf {

struct MergedSegment {
  enum class Kind : uint8_t { header, zeros, shard };
  Kind kind = Kind::zeros;
  uint64_t start = 0;  // offset in the merged file
  uint64_t size = 0;
  uint32_t shard = 0;         // Kind::shard: index into the shards (0-based) ...
  uint64_t shard_offset = 0;  // ... and the absolute offset in that shard's file
  uint64_t present = 0;       // Kind::shard: how many of the bytes the shard really has
};

struct MergedLayout {
  // Bytes from the magic to the padding before the data: [0, data_offset), except that padding
  // beyond 4 KiB (a huge general.alignment) is a zeros segment after it.
  std::string header;
  uint64_t alignment = 32;
  uint64_t data_offset = 0;
  uint64_t size = 0;  // the merged file's size
  uint64_t n_kv = 0;  // metadata entries kept
  uint64_t n_tensors = 0;
  bool big_endian = false;
  std::vector<MergedSegment> segments;   // in file order, covering [0, size) without gaps
  std::vector<uint64_t> tensor_offsets;  // each tensor's offset in the data section, in order
};

// True for the keys of split bookkeeping (split.no, split.count, split.tensors.count, and any
// other "split." key): they describe the shards, not the merged file.
bool is_split_key(std::string_view key);

// Lays out the merged file of these shards (in order; metadata from the first). Throws
// FormatError(split) for shards of different byte orders.
MergedLayout merge_layout(const std::vector<ModelPtr>& shards);

// The metadata section of a merged file: the pairs as encoded (key, type id, value), how many,
// and the alignment they give. merge_layout builds the header in encoded's own buffer when its
// capacity allows (see merged_header_capacity): an edit of a model with an 8 MB vocabulary then
// copies those bytes once, not twice.
struct MergedMetadata {
  std::string encoded;
  uint64_t count = 0;
  uint64_t alignment = 32;
};
// The capacity a MergedMetadata's encoded needs for pairs of pairs_bytes bytes to become the
// merged header of these shards in place.
size_t merged_header_capacity(const std::vector<ModelPtr>& shards, size_t pairs_bytes);
// The first shard's metadata without the split.* keys.
MergedMetadata merged_metadata(const Model& first);
// The merged file of these shards with other metadata (an edited model, gguf/edit/).
MergedLayout merge_layout(const std::vector<ModelPtr>& shards, MergedMetadata metadata);

// The merged file as a ByteSource (reads served from the header and the shards), for parsing it
// with our reader and for `gguffs summary`. fd() is -1.
std::shared_ptr<ByteSource> merged_source(std::vector<ModelPtr> shards,
                                          std::shared_ptr<const MergedLayout> layout,
                                          std::string name);

}  // namespace gguf
