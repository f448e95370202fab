#include "gguf/edit/edited_model.hpp"

#include <bit>

#include "gguf/parser.hpp"
#include "gguf/source/source.hpp"

namespace gguf {

namespace {

void put(std::string& out, uint64_t v, uint32_t size, bool be) {
  for (uint32_t i = 0; i < size; ++i) {
    const uint32_t shift = be ? 8 * (size - 1 - i) : 8 * i;
    out.push_back(static_cast<char>((v >> shift) & 0xFF));
  }
}

uint64_t read_u32(std::string_view bytes, bool be) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < 4 && i < bytes.size(); ++i) {
    const uint32_t shift = be ? 8 * (3 - i) : 8 * i;
    v |= uint64_t{static_cast<uint8_t>(bytes[i])} << shift;
  }
  return v;
}

}  // namespace

EditedEntry EditedEntry::make(std::string key, ValueType type, std::string value) {
  EditedEntry e;
  e.key = std::move(key);
  e.type = type;
  auto owned = std::make_shared<const std::string>(std::move(value));
  e.value = *owned;
  e.owned = std::move(owned);
  return e;
}

std::vector<EditedEntry> base_entries(const Model& first, bool keep_split_keys) {
  std::vector<EditedEntry> out;
  out.reserve(first.metadata.size());
  for (const MetadataEntry& m : first.metadata) {
    if (!keep_split_keys && is_split_key(m.key)) continue;
    EditedEntry e;
    e.key = std::string(m.key);
    e.type = m.value.type;
    e.value = first.stored_value(m);
    out.push_back(std::move(e));
  }
  return out;
}

uint64_t alignment_of(const std::vector<EditedEntry>& entries, bool big_endian) {
  for (const EditedEntry& e : entries) {
    if (e.key != "general.alignment") continue;
    if (e.type != ValueType::UINT32) return 32;
    const uint64_t a = read_u32(e.value, big_endian);
    return a != 0 && std::has_single_bit(a) ? a : 32;
  }
  return 32;
}

void append_encoded_pair(std::string& out, const EditedEntry& entry, bool big_endian) {
  put(out, entry.key.size(), 8, big_endian);
  out.append(entry.key);
  put(out, static_cast<uint32_t>(entry.type), 4, big_endian);
  out.append(entry.value);
}

EditedModel build_edited_model(const std::vector<ModelPtr>& shards,
                               const std::vector<EditedEntry>& entries, const std::string& name) {
  const bool be = shards.front()->big_endian;
  MergedMetadata metadata;
  size_t bytes = 0;
  for (const EditedEntry& e : entries) bytes += 8 + e.key.size() + 4 + e.value.size();
  metadata.encoded.reserve(merged_header_capacity(shards, bytes));
  for (const EditedEntry& e : entries) append_encoded_pair(metadata.encoded, e, be);
  metadata.count = entries.size();
  metadata.alignment = alignment_of(entries, be);
  EditedModel out;
  out.layout = std::make_shared<const MergedLayout>(merge_layout(shards, std::move(metadata)));
  out.parsed = std::make_shared<const LazyParse>(shards, out.layout, name);
  return out;
}

LazyParse::LazyParse(std::vector<ModelPtr> shards, std::shared_ptr<const MergedLayout> layout,
                     std::string name)
    : shards_(std::move(shards)), layout_(std::move(layout)), name_(std::move(name)) {}

ModelPtr LazyParse::get() const {
  // A parse that throws leaves once_ unset: the next reader tries (and fails) again.
  std::call_once(once_, [this] { model_ = parse(merged_source(shards_, layout_, name_)); });
  return model_;
}

ModelPtr parse_single_pair(const EditedEntry& entry, bool big_endian) {
  std::string file("GGUF", 4);
  put(file, 3, 4, big_endian);
  put(file, 0, 8, big_endian);  // tensors
  put(file, 1, 8, big_endian);  // pairs
  append_encoded_pair(file, entry, big_endian);
  return parse(memory_source(std::move(file), entry.key));
}

}  // namespace gguf
