#include "gguf/diff/model_diff.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "gguf/errors.hpp"
#include "gguf/merged_layout.hpp"
#include "gguf/render/json_text.hpp"
#include "gguf/render/render.hpp"
#include "gguf/render/render_text.hpp"
#include "gguf/stats/sha256.hpp"
#include "gguf/types.hpp"

namespace gguf {

namespace {

constexpr size_t kShortValue = 80;
constexpr uint64_t kChunkBytes = 4 << 20;

std::string type_label(const Value& v) {
  if (v.type != ValueType::ARRAY) return std::string(value_type_name(v.type));
  return fmt::format("ARRAY of {} {}", v.array.count, value_type_name(v.array.element_type));
}

// A value as the diff shows it, and the text two values are compared by.
struct ShownValue {
  std::string shown;
  std::string compared;
};

ShownValue show(const Value& v) {
  std::string text = render_metadata_file(v);
  std::string shown = type_label(v);
  const bool scalar_line = v.type != ValueType::ARRAY && v.type != ValueType::STRING;
  std::string_view body = text;
  if (scalar_line && body.ends_with('\n')) body.remove_suffix(1);
  if (v.type != ValueType::ARRAY && body.size() <= kShortValue &&
      body.find('\n') == std::string_view::npos) {
    shown += ' ';
    render_detail::append_one_line(shown, body);
  } else {
    shown += fmt::format(", {} bytes, sha256 {}", text.size(), sha256_hex(text).substr(0, 16));
  }
  return {std::move(shown), type_label(v) + '\n' + text};
}

struct TensorRef {
  const Model* shard;
  const TensorInfo* info;
};

std::string describe(const TensorInfo& t) {
  std::string out;
  if (const auto type = tensor_type(t.type_id))
    out = std::string(type->name);
  else
    out = fmt::format("type {}", t.type_id);
  out += ", ne";
  for (uint32_t i = 0; i < std::max<uint32_t>(1, t.n_dims); ++i)
    fmt::format_to(std::back_inserter(out), " {}", t.ne[i]);
  return out;
}

std::vector<TensorRef> tensors_of(const ModelSet& set) {
  std::vector<TensorRef> out;
  for (const ModelPtr& shard : set.shards)
    for (const TensorInfo& t : shard->tensors) out.push_back({shard.get(), &t});
  return out;
}

std::string one_line(std::string_view bytes) {
  std::string out;
  render_detail::append_one_line(out, bytes);
  return out;
}

void diff_keys(const ModelSet& a, const ModelSet& b, ModelDiff& d) {
  auto keys_of = [](const ModelSet& set) {
    std::vector<const MetadataEntry*> out;
    for (const MetadataEntry& e : set.first()->metadata)
      if (!is_split_key(e.key)) out.push_back(&e);
    return out;
  };
  const auto ka = keys_of(a), kb = keys_of(b);
  std::unordered_map<std::string_view, const MetadataEntry*> in_b;
  for (const MetadataEntry* e : kb) in_b.emplace(e->key, e);
  std::unordered_map<std::string_view, bool> in_a;
  for (const MetadataEntry* e : ka) {
    if (!in_a.emplace(e->key, true).second) continue;  // a repeated key: the first one counts
    const auto other = in_b.find(e->key);
    const ShownValue va = show(e->value);
    if (other == in_b.end()) {
      d.keys.push_back({KeyChange::Kind::removed, one_line(e->key), va.shown, ""});
      continue;
    }
    const ShownValue vb = show(other->second->value);
    if (va.compared == vb.compared)
      ++d.keys_same;
    else
      d.keys.push_back({KeyChange::Kind::changed, one_line(e->key), va.shown, vb.shown});
  }
  std::unordered_map<std::string_view, bool> added;
  for (const MetadataEntry* e : kb)
    if (!in_a.contains(e->key) && added.emplace(e->key, true).second)
      d.keys.push_back({KeyChange::Kind::added, one_line(e->key), "", show(e->value).shown});
}

struct Comparison {
  TensorRef a, b;
  size_t change;  // index of its TensorChange, filled in when the bytes differ
  std::atomic<uint64_t> first_difference{UINT64_MAX};
};

struct Chunk {
  Comparison* pair;
  uint64_t offset, size;
};

// Compares the chunks on threads; each chunk records its first difference (the lowest wins).
void compare_chunks(std::vector<Chunk>& chunks, unsigned threads) {
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::exception_ptr error;
  auto worker = [&] {
    std::vector<uint8_t> x, y;
    try {
      for (size_t i = next++; i < chunks.size(); i = next++) {
        const Chunk& c = chunks[i];
        x.resize(static_cast<size_t>(c.size));
        y.resize(static_cast<size_t>(c.size));
        const size_t nx = c.pair->a.shard->source->read_at(c.pair->a.info->file_offset + c.offset,
                                                           x.data(), c.size);
        const size_t ny = c.pair->b.shard->source->read_at(c.pair->b.info->file_offset + c.offset,
                                                           y.data(), c.size);
        const size_t n = std::min(nx, ny);
        uint64_t at = UINT64_MAX;
        if (std::memcmp(x.data(), y.data(), n) != 0) {
          at = static_cast<uint64_t>(
              std::mismatch(x.begin(), x.begin() + static_cast<long>(n), y.begin()).first -
              x.begin());
        } else if (nx != ny) {
          at = n;  // one file ends here (a partial download)
        }
        if (at != UINT64_MAX) {
          uint64_t expected = c.pair->first_difference.load();
          const uint64_t value = c.offset + at;
          while (value < expected &&
                 !c.pair->first_difference.compare_exchange_weak(expected, value)) {
          }
        }
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
      next = chunks.size();
    }
  };
  unsigned n = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  n = static_cast<unsigned>(std::min<size_t>(n, std::max<size_t>(1, chunks.size())));
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < n; ++i) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

void diff_tensors(const ModelSet& a, const ModelSet& b, unsigned threads, ModelDiff& d) {
  const auto ta = tensors_of(a), tb = tensors_of(b);
  std::unordered_map<std::string_view, TensorRef> in_b;
  for (const TensorRef& t : tb) in_b.emplace(t.info->name, t);
  std::unordered_map<std::string_view, bool> in_a;
  std::vector<std::unique_ptr<Comparison>> pairs;
  for (const TensorRef& t : ta) {
    if (!in_a.emplace(t.info->name, true).second) continue;
    const auto other = in_b.find(t.info->name);
    if (other == in_b.end()) {
      d.tensors.push_back(
          {TensorChange::Kind::removed, one_line(t.info->name), describe(*t.info), "", 0, 0});
      continue;
    }
    const TensorInfo& x = *t.info;
    const TensorInfo& y = *other->second.info;
    if (x.type_id != y.type_id || x.ne != y.ne || x.n_dims != y.n_dims || x.bytes != y.bytes) {
      d.tensors.push_back(
          {TensorChange::Kind::type_or_shape, one_line(x.name), describe(x), describe(y), 0, 0});
      continue;
    }
    auto pair = std::make_unique<Comparison>();
    pair->a = t;
    pair->b = other->second;
    pair->change = d.tensors.size();
    // A placeholder, removed again when the bytes agree; keeps A's order.
    d.tensors.push_back(
        {TensorChange::Kind::bytes, one_line(x.name), describe(x), describe(y), 0, x.bytes});
    pairs.push_back(std::move(pair));
  }
  std::vector<Chunk> chunks;
  for (auto& p : pairs) {
    const uint64_t size = p->a.info->bytes;
    for (uint64_t off = 0; off < size; off += kChunkBytes)
      chunks.push_back({p.get(), off, std::min(kChunkBytes, size - off)});
    d.bytes_compared += size;
  }
  compare_chunks(chunks, threads);
  std::vector<bool> keep(d.tensors.size(), true);
  for (const auto& p : pairs) {
    const uint64_t at = p->first_difference.load();
    if (at == UINT64_MAX) {
      keep[p->change] = false;
      ++d.tensors_same;
    } else {
      d.tensors[p->change].first_difference = at;
    }
  }
  std::vector<TensorChange> kept;
  for (size_t i = 0; i < d.tensors.size(); ++i)
    if (keep[i]) kept.push_back(std::move(d.tensors[i]));
  d.tensors = std::move(kept);
  std::unordered_map<std::string_view, bool> added;
  for (const TensorRef& t : tb)
    if (!in_a.contains(t.info->name) && added.emplace(t.info->name, true).second)
      d.tensors.push_back(
          {TensorChange::Kind::added, one_line(t.info->name), "", describe(*t.info), 0, 0});
}

template <class Kind>
size_t count(const auto& changes, Kind kind) {
  return static_cast<size_t>(std::count_if(changes.begin(), changes.end(),
                                           [kind](const auto& c) { return c.kind == kind; }));
}

std::string total_line(const ModelDiff& d) {
  using K = KeyChange::Kind;
  using T = TensorChange::Kind;
  return fmt::format(
      "{}: keys {} added, {} removed, {} changed, {} same; tensors {} added, {} removed, {} other "
      "type or shape, {} other bytes, {} same\n",
      d.same() ? "same" : "different", count(d.keys, K::added), count(d.keys, K::removed),
      count(d.keys, K::changed), d.keys_same, count(d.tensors, T::added),
      count(d.tensors, T::removed), count(d.tensors, T::type_or_shape), count(d.tensors, T::bytes),
      d.tensors_same);
}

}  // namespace

ModelDiff diff_models(const ModelSet& a, const ModelSet& b, unsigned threads) {
  ModelDiff d;
  diff_keys(a, b, d);
  diff_tensors(a, b, threads, d);
  return d;
}

std::string render_diff_text(const ModelDiff& d) {
  std::string out;
  auto line = std::back_inserter(out);
  for (const KeyChange& k : d.keys) {
    switch (k.kind) {
      case KeyChange::Kind::added:
        fmt::format_to(line, "+ key {} = {}\n", k.key, k.b);
        break;
      case KeyChange::Kind::removed:
        fmt::format_to(line, "- key {} = {}\n", k.key, k.a);
        break;
      case KeyChange::Kind::changed:
        fmt::format_to(line, "~ key {}: {} -> {}\n", k.key, k.a, k.b);
        break;
    }
  }
  for (const TensorChange& t : d.tensors) {
    switch (t.kind) {
      case TensorChange::Kind::added:
        fmt::format_to(line, "+ tensor {} ({})\n", t.name, t.b);
        break;
      case TensorChange::Kind::removed:
        fmt::format_to(line, "- tensor {} ({})\n", t.name, t.a);
        break;
      case TensorChange::Kind::type_or_shape:
        fmt::format_to(line, "~ tensor {}: {} -> {}\n", t.name, t.a, t.b);
        break;
      case TensorChange::Kind::bytes:
        fmt::format_to(line, "~ tensor {}: other bytes ({}), first difference at byte {} of {}\n",
                       t.name, t.a, t.first_difference, t.bytes);
        break;
    }
  }
  out += total_line(d);
  return out;
}

std::string render_diff_json(const ModelDiff& d) {
  using render_detail::append_json_string;
  std::string out = fmt::format("{{\"same\":{},\"keys\":[", d.same());
  static constexpr const char* kKeyKinds[] = {"added", "removed", "changed"};
  static constexpr const char* kTensorKinds[] = {"added", "removed", "type_or_shape", "bytes"};
  auto field = [&out](const char* name, const std::string& value) {
    if (value.empty()) return;
    fmt::format_to(std::back_inserter(out), ",\"{}\":", name);
    append_json_string(out, value);
  };
  for (size_t i = 0; i < d.keys.size(); ++i) {
    const KeyChange& k = d.keys[i];
    fmt::format_to(std::back_inserter(out), "{}{{\"change\":\"{}\",\"key\":", i ? "," : "",
                   kKeyKinds[static_cast<int>(k.kind)]);
    append_json_string(out, k.key);
    field("a", k.a);
    field("b", k.b);
    out += '}';
  }
  out += "],\"tensors\":[";
  for (size_t i = 0; i < d.tensors.size(); ++i) {
    const TensorChange& t = d.tensors[i];
    fmt::format_to(std::back_inserter(out), "{}{{\"change\":\"{}\",\"name\":", i ? "," : "",
                   kTensorKinds[static_cast<int>(t.kind)]);
    append_json_string(out, t.name);
    field("a", t.a);
    field("b", t.b);
    if (t.kind == TensorChange::Kind::bytes)
      fmt::format_to(std::back_inserter(out), ",\"first_difference\":{},\"bytes\":{}",
                     t.first_difference, t.bytes);
    out += '}';
  }
  using K = KeyChange::Kind;
  using T = TensorChange::Kind;
  fmt::format_to(std::back_inserter(out),
                 "],\"total\":{{\"keys_added\":{},\"keys_removed\":{},\"keys_changed\":{},"
                 "\"keys_same\":{},\"tensors_added\":{},\"tensors_removed\":{},"
                 "\"tensors_type_or_shape\":{},\"tensors_bytes\":{},\"tensors_same\":{}}}}}\n",
                 count(d.keys, K::added), count(d.keys, K::removed), count(d.keys, K::changed),
                 d.keys_same, count(d.tensors, T::added), count(d.tensors, T::removed),
                 count(d.tensors, T::type_or_shape), count(d.tensors, T::bytes), d.tensors_same);
  return out;
}

}  // namespace gguf
