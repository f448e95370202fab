// data.f32 as the FUSE layer reads it, without FUSE: DecodedFloats::read of 128 KiB requests
// (the kernel's readahead size) in order, counted in float32 output bytes per second. The gap to
// Decode/<type> is the cost of reading the blocks and slicing requests.
// Run: build/gguffs_bench --benchmark_filter=DecodedRead
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "fs/tree/content_decoded.hpp"
#include "gguf/parser.hpp"
#include "gguf/types.hpp"
#include "gguf/writer.hpp"

namespace {

constexpr size_t kRequest = 128 * 1024;

// A model holding one Q4_K tensor of 64 MiB of output: random quants, scales 1/256.
gguf::ModelPtr q4_k_model() {
  const uint64_t blocks = 64 * 1024;  // 256 values each
  std::string data(blocks * 144, '\0');
  std::mt19937 rng(7);
  for (auto& c : data) c = static_cast<char>(rng());
  for (uint64_t b = 0; b < blocks; ++b) {
    data[b * 144 + 0] = 0x00, data[b * 144 + 1] = 0x1c;  // d = 2^-8
    data[b * 144 + 2] = 0x00, data[b * 144 + 3] = 0x1c;  // dmin = 2^-8
  }
  gguf::Writer w;
  w.add_tensor("q", {256, blocks}, gguf::type_id::Q4_K, std::move(data));
  return gguf::parse(gguf::memory_source(w.to_bytes(), "bench"));
}

void DecodedRead_Q4_K(benchmark::State& state) {
  static const gguf::ModelPtr model = q4_k_model();
  const gguffs::DecodedFloats content(model->source, model->tensors.at(0), false);
  uint64_t off = 0;
  for (auto _ : state) {
    gguffs::ReadBuffer out(kRequest);
    content.read(off, kRequest, out);
    benchmark::DoNotOptimize(out.pieces().data());
    off = off + kRequest >= content.size() ? 0 : off + kRequest;
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kRequest));
}
BENCHMARK(DecodedRead_Q4_K);

}  // namespace
