// Finding and checking the shards of a split model (reference §3). The checks are llama.cpp's
// loader's, made before mounting so a broken set is refused with the file and the reason.
#include "gguf/split.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <unordered_map>

#include "gguf/errors.hpp"
#include "gguf/merged_layout.hpp"
#include "gguf/parser.hpp"

namespace gguf {

namespace {

using Kind = FormatError::Kind;

constexpr std::string_view kSuffixExample = "-00001-of-00003.gguf";

std::optional<uint32_t> five_digits(std::string_view s) {
  uint32_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint32_t>(c - '0');
  }
  return n;
}

[[noreturn]] void refuse(const std::string& file, const std::string& message) {
  throw FormatError(Kind::split, file, std::nullopt, message);
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// A split.* key as a non-negative integer; nullopt when absent. Any integer type is accepted
// (both writers use u16/u16/i32); anything else is refused.
std::optional<uint64_t> split_key(const Model& m, std::string_view key) {
  const MetadataEntry* e = m.find(key);
  if (!e) return std::nullopt;
  const auto v = e->value.as_unsigned();
  if (!v) {
    refuse(m.name(), fmt::format("key '{}' holds a {}, expected a non-negative integer", key,
                                 value_type_name(e->value.type)));
  }
  return v;
}

// Parses shard `number` (1-based) of count; every failure becomes a split error naming it.
ModelPtr open_shard(const std::string& path, uint32_t number, uint32_t count,
                    const SourceOpener& open) {
  try {
    return open ? parse(open(path)) : parse_file(path);
  } catch (const FormatError& e) {
    // A server that refuses us or cannot be used says so with its own exit code.
    if (e.kind() == Kind::remote_denied || e.kind() == Kind::remote_unusable) throw;
    const std::string where = e.offset() ? fmt::format("byte {}: ", *e.offset()) : "";
    if (e.kind() == Kind::io) {
      refuse(path, fmt::format("shard {} of {} is missing or unreadable: {}", number, count,
                               e.message()));
    }
    refuse(path, fmt::format("shard {} of {} cannot be read as GGUF: {}{}", number, count, where,
                             e.message()));
  }
}

// split.count and split.no of shard `number` (1-based) against its name.
void check_shard_keys(const Model& m, uint32_t number, uint32_t count) {
  const auto n = split_key(m, "split.count");
  if (!n) refuse(m.name(), fmt::format("key 'split.count' is missing (expected {})", count));
  if (*n != count) {
    refuse(m.name(), fmt::format("split.count is {} but the file name says {} shards", *n, count));
  }
  const auto no = split_key(m, "split.no");
  if (!no) refuse(m.name(), fmt::format("key 'split.no' is missing (expected {})", number - 1));
  if (*no != number - 1) {
    refuse(m.name(),
           fmt::format("split.no is {} (shard {}) but the file name says shard {} (split.no {}); "
                       "was the file renamed?",
                       *no, *no + 1, number, number - 1));
  }
}

void check_tensors(const ModelSet& set) {
  std::unordered_map<std::string_view, size_t> seen;
  uint64_t total = 0;
  for (size_t k = 0; k < set.shards.size(); ++k) {
    for (const TensorInfo& t : set.shards[k]->tensors) {
      ++total;
      const auto [it, inserted] = seen.emplace(t.name, k);
      if (!inserted && it->second != k) {
        refuse(
            set.shards[k]->name(),
            fmt::format("tensor '{}' is also in shard {} ({}): a tensor may be in one shard only",
                        t.name, it->second + 1, file_name(set.shards[it->second]->name())));
      }
    }
  }
  const Model& first = *set.first();
  const auto expected = split_key(first, "split.tensors.count");
  if (!expected) {
    refuse(first.name(), fmt::format("key 'split.tensors.count' is missing (the {} shards hold {} "
                                     "tensors)",
                                     set.shards.size(), total));
  }
  if (*expected != total) {
    refuse(first.name(), fmt::format("split.tensors.count is {} but the {} shards hold {} tensors",
                                     *expected, set.shards.size(), total));
  }
  for (const ModelPtr& m : set.shards) {
    const auto here = split_key(*m, "split.tensors.count");
    if (here && *here != *expected) {
      refuse(m->name(), fmt::format("split.tensors.count is {} but the first shard says {}", *here,
                                    *expected));
    }
  }
}

}  // namespace

std::optional<ShardName> parse_shard_name(std::string_view path) {
  const size_t n = kSuffixExample.size();
  if (path.size() <= n) return std::nullopt;
  const std::string_view suffix = path.substr(path.size() - n);
  if (suffix[0] != '-' || suffix.substr(6, 4) != "-of-" || suffix.substr(15) != ".gguf")
    return std::nullopt;
  const auto number = five_digits(suffix.substr(1, 5));
  const auto count = five_digits(suffix.substr(10, 5));
  if (!number || !count || *number < 1 || *number > *count) return std::nullopt;
  return ShardName{std::string(path.substr(0, path.size() - n)), *number, *count};
}

std::string shard_path(std::string_view prefix, uint32_t number, uint32_t count) {
  return fmt::format("{}-{:05d}-of-{:05d}.gguf", prefix, number, count);
}

uint64_t ModelSet::tensor_count() const {
  uint64_t n = 0;
  for (const ModelPtr& m : shards) n += m->tensors.size();
  return n;
}

uint64_t ModelSet::total_file_size() const {
  uint64_t n = 0;
  for (const ModelPtr& m : shards) n += m->source->size();
  return n;
}

ModelSet single_model(ModelPtr model) {
  ModelSet set;
  set.shards.push_back(std::move(model));
  return set;
}

ModelSet open_model_set(const std::string& path, bool single, const SourceOpener& open) {
  ModelPtr given = open ? parse(open(path)) : parse_file(path);
  const auto name = parse_shard_name(path);
  if (single || !name) return single_model(std::move(given));
  const auto count = split_key(*given, "split.count");
  if (!count || *count <= 1) return single_model(std::move(given));

  check_shard_keys(*given, name->number, name->count);
  ModelSet set;
  set.shards.resize(name->count);
  for (uint32_t number = 1; number <= name->count; ++number) {
    if (number == name->number) {
      set.shards[number - 1] = given;
      continue;
    }
    ModelPtr shard =
        open_shard(shard_path(name->prefix, number, name->count), number, name->count, open);
    check_shard_keys(*shard, number, name->count);
    set.shards[number - 1] = std::move(shard);
  }
  check_tensors(set);
  set.merged = std::make_shared<const MergedLayout>(merge_layout(set.shards));
  return set;
}

}  // namespace gguf
