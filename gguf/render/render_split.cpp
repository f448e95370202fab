// summary.txt and `gguffs check` for a model set: for a split model the figures are those of the
// merged model.gguf (parsed from its synthesized header, so every total covers all shards),
// followed by one line per shard.
#include <fmt/format.h>

#include <filesystem>
#include <iterator>

#include "gguf/merged_layout.hpp"
#include "gguf/parser.hpp"
#include "gguf/render/render.hpp"
#include "gguf/render/render_text.hpp"
#include "gguf/split.hpp"

namespace gguf {

namespace {

std::string base_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

}  // namespace

std::string render_set_summary(const ModelSet& set) {
  if (!set.is_split() || !set.merged) return render_summary(*set.first());
  using render_detail::append_each_line;
  using render_detail::append_one_line;
  using render_detail::group_digits;
  const ModelPtr merged = parse(merged_source(set.shards, set.merged, "model.gguf"));
  std::string out = render_summary(*merged);
  auto line = std::back_inserter(out);
  fmt::format_to(line,
                 "split model: {} shards, {} tensors, {} bytes in all (model.gguf merges them)\n",
                 set.shards.size(), set.tensor_count(), group_digits(set.total_file_size()));
  for (size_t k = 0; k < set.shards.size(); ++k) {
    const Model& m = *set.shards[k];
    fmt::format_to(line, " shard {} ", k + 1);
    append_one_line(out, base_name(m.name()));
    fmt::format_to(line, " {} bytes {} tensors", group_digits(m.file_size), m.tensors.size());
    if (const uint64_t missing = m.missing_bytes(); missing != 0)
      fmt::format_to(line, ", missing {} bytes of tensor data (partial file)",
                     group_digits(missing));
    out.push_back('\n');
    append_each_line(out, "  warning: ", m.warnings);
  }
  return out;
}

std::string render_set_warnings(const ModelSet& set) {
  if (!set.is_split()) return render_warnings(*set.first());
  std::string out;
  for (const ModelPtr& m : set.shards) {
    // Escaping works per character and ": " is ASCII, so this is the same text as escaping
    // "name: warning" whole.
    std::string prefix;
    render_detail::append_one_line(prefix, base_name(m->name()));
    prefix += ": ";
    render_detail::append_each_line(out, prefix, m->warnings);
  }
  return out;
}

}  // namespace gguf
