// Rendering time of the big texts a Llama-3-sized vocabulary produces (128,256 tokens, 280,147
// merges): metadata/tokenizer.ggml.tokens, metadata/tokenizer.ggml.merges, metadata.json, and a
// nested array of token lists (JSON inside a metadata/ file).
// Run: build/gguffs_bench --benchmark_filter=Render
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "gguf/parser.hpp"
#include "gguf/render/render.hpp"
#include "gguf/render/render_json.hpp"
#include "gguf/source/source.hpp"
#include "tests/support/model_builders.hpp"

namespace {

// Parsed once for all benchmarks: building the vocabulary is slower than rendering it.
const gguf::Model& vocab_model() {
  static const gguf::ModelPtr model = [] {
    gguf::Writer w = test_support::llama3_vocab_writer();
    // Token lists inside an array: each element a JSON array of 64 tokens.
    const auto vocab = test_support::synthetic_vocab(128'256, 0, {}, 16);
    std::vector<gguf::OwnedValue> groups;
    for (size_t i = 0; i + 64 <= vocab.tokens.size(); i += 64) {
      groups.push_back(gguf::OwnedValue::string_array(
          std::vector<std::string>(vocab.tokens.begin() + static_cast<long>(i),
                                   vocab.tokens.begin() + static_cast<long>(i + 64))));
    }
    w.add("bench.token_groups", gguf::OwnedValue::array_of_arrays(std::move(groups)));
    return gguf::parse(gguf::memory_source(w.to_bytes()));
  }();
  return *model;
}

void render_key(benchmark::State& state, const char* key) {
  const gguf::MetadataEntry* e = vocab_model().find(key);
  if (e == nullptr) {
    state.SkipWithError("key missing");
    return;
  }
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = gguf::render_metadata_file(e->value);
    bytes += text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void RenderTokens(benchmark::State& state) {
  render_key(state, "tokenizer.ggml.tokens");
}
void RenderMerges(benchmark::State& state) {
  render_key(state, "tokenizer.ggml.merges");
}
void RenderNestedJson(benchmark::State& state) {
  render_key(state, "bench.token_groups");
}

void RenderMetadataJson(benchmark::State& state) {
  const gguf::Model& model = vocab_model();
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = gguf::render_metadata_json(model);
    bytes += text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

}  // namespace

BENCHMARK(RenderTokens)->Unit(benchmark::kMillisecond);
BENCHMARK(RenderMerges)->Unit(benchmark::kMillisecond);
BENCHMARK(RenderNestedJson)->Unit(benchmark::kMillisecond);
BENCHMARK(RenderMetadataJson)->Unit(benchmark::kMillisecond);
