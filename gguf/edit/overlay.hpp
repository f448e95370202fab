// An edit overlay (-o overlay=FILE): the edits of a --edit mount kept across remounts, and the
// input of `gguffs export`. It is itself a small GGUF file (no tensors), in the base model's byte
// order:
//   gguffs.overlay.base_size     UINT64         the base model's size (all shards)
//   gguffs.overlay.base_sha256   STRING         SHA-256 (hex) of the base's header bytes (the
//                                               first shard's bytes before its tensor data)
//   gguffs.overlay.deleted       ARRAY[STRING]  base keys deleted
//   then every changed or added pair, as it is in the edited model (added ones in order).
// Applying it to another base is refused (OverlayError): its pairs would land on other data.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "gguf/edit/edited_model.hpp"
#include "gguf/split.hpp"

namespace gguf {

class OverlayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BaseIdentity {
  uint64_t size = 0;
  std::string sha256;  // lowercase hex
  bool operator==(const BaseIdentity&) const = default;
};

struct Overlay {
  BaseIdentity base;
  std::vector<std::string> deleted;
  std::vector<EditedEntry> pairs;  // changed and added
};

BaseIdentity base_identity(const ModelSet& set);

// What turns base into current.
Overlay diff_overlay(const ModelSet& base, const std::vector<EditedEntry>& base_entries,
                     const std::vector<EditedEntry>& current);
// base with the overlay applied: deleted keys dropped, changed ones replaced in place, added ones
// appended. Throws OverlayError when it was made for another base.
std::vector<EditedEntry> apply_overlay(const ModelSet& base,
                                       const std::vector<EditedEntry>& base_entries,
                                       const Overlay& overlay);

// Throws OverlayError naming the file (unreadable, not an overlay).
Overlay read_overlay(const std::string& path, bool big_endian);
// Written to path + ".tmp", then renamed over path.
void write_overlay(const std::string& path, const Overlay& overlay, bool big_endian);

}  // namespace gguf
