#include "fs/cli/verbose_report.hpp"

#include <fmt/format.h>

#include <iterator>
#include <string_view>

#include "gguf/render/render.hpp"

namespace gguffs {

namespace {

double milliseconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

}  // namespace

std::string parse_report(const std::vector<gguf::ModelPtr>& shards,
                         std::chrono::steady_clock::duration took) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "gguffs: parsed {} file{} in {:.2f} ms\n", shards.size(),
                 shards.size() == 1 ? "" : "s", milliseconds(took));
  for (const gguf::ModelPtr& m : shards) {
    fmt::format_to(it,
                   "gguffs: {}: GGUF v{}, {}, {} KV pairs, {} tensors, alignment {}, data at byte "
                   "{}, {} bytes, {} warning{}\n",
                   m->name(), m->version, m->big_endian ? "big-endian" : "little-endian", m->n_kv,
                   m->n_tensors, m->alignment, m->data_offset, m->file_size, m->warnings.size(),
                   m->warnings.size() == 1 ? "" : "s");
  }
  for (const gguf::ModelPtr& m : shards) {
    // render_warnings keeps each warning on one line.
    const std::string text = gguf::render_warnings(*m);
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      fmt::format_to(it, "gguffs: warning: {}\n",
                     std::string_view(text).substr(start, end - start));
      start = end + 1;
    }
  }
  return out;
}

std::string tree_report(size_t nodes, std::chrono::steady_clock::duration took) {
  return fmt::format("gguffs: built the tree in {:.2f} ms: {} files and directories\n",
                     milliseconds(took), nodes);
}

}  // namespace gguffs
