// An edited model: the base model's metadata pairs with some changed, added, deleted or renamed,
// and its tensors untouched. It is described, not written: a new header (a MergedLayout whose
// data segments still point into the original file or shards) and that header parsed again, so
// every renderer (metadata.json, summary.txt, metadata/<key>) sees the edit like any other model.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/merged_layout.hpp"
#include "gguf/model.hpp"
#include "gguf/types.hpp"

namespace gguf {

// One metadata pair of a version: its key, type and value encoding (the bytes after the type id).
// value points into the base model's header or into owned, which the entry shares.
struct EditedEntry {
  std::string key;
  ValueType type = ValueType::UINT8;
  std::string_view value;
  std::shared_ptr<const std::string> owned;

  static EditedEntry make(std::string key, ValueType type, std::string value);
};

// The first shard's pairs as they are (split.* keys dropped: they describe the shards; kept for
// a single file, which is mounted as it is).
std::vector<EditedEntry> base_entries(const Model& first, bool keep_split_keys = false);

// The alignment these pairs give the file: general.alignment when it is a UINT32 power of two,
// else 32 (as gguf.cpp reads it).
uint64_t alignment_of(const std::vector<EditedEntry>& entries, bool big_endian);

// model.gguf's header parsed on first use, once (thread-safe).
class LazyParse {
 public:
  LazyParse(std::vector<ModelPtr> shards, std::shared_ptr<const MergedLayout> layout,
            std::string name);
  // Throws FormatError when the header does not parse.
  ModelPtr get() const;

 private:
  std::vector<ModelPtr> shards_;
  std::shared_ptr<const MergedLayout> layout_;
  std::string name_;
  mutable std::once_flag once_;
  mutable ModelPtr model_;
};

struct EditedModel {
  std::shared_ptr<const MergedLayout> layout;  // model.gguf
  // model.gguf parsed (header only), for the renderers (metadata.json, summary.txt). Parsed
  // when first read, not per edit: parsing an 8 MB vocabulary again took half of an edit.
  std::shared_ptr<const LazyParse> parsed;
};

// model.gguf for the shards' tensors with these pairs, laid out again (tensor offsets follow the
// alignment). Every pair was parsed on its own when it was written (parse_single_pair), the
// tensor infos are the shards', and the layout checks the sizes, so the header parses; the
// parse itself waits for the first reader (LazyParse).
EditedModel build_edited_model(const std::vector<ModelPtr>& shards,
                               const std::vector<EditedEntry>& entries, const std::string& name);

// A GGUF file holding just this pair, parsed: a Value to render one edited pair with.
ModelPtr parse_single_pair(const EditedEntry& entry, bool big_endian);

// The encoded pair: key length, key, type id, value, in the given byte order.
void append_encoded_pair(std::string& out, const EditedEntry& entry, bool big_endian);

}  // namespace gguf
