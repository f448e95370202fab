// Decode throughput per type on one core, counted in float32 OUTPUT bytes per second, over
// 1 MiB of input blocks. Run: build/gguffs_bench --benchmark_filter=Decode
#include <benchmark/benchmark.h>

#include <bit>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gguf/decode/decode.hpp"
#include "gguf/types.hpp"

namespace {

namespace t = gguf::type_id;

constexpr size_t kInputBytes = 1 << 20;

void put_u16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}

// Byte offsets of the fp16 scales in a block, so they can be set to ordinary values (random
// bits would give NaN, inf and subnormal scales, which real models do not have).
std::vector<size_t> half_scale_offsets(uint32_t id) {
  switch (id) {
    case t::Q4_1:
    case t::Q5_1:
    case t::Q4_K:
    case t::Q5_K:
      return {0, 2};
    case t::Q2_K:
      return {80, 82};
    case t::Q3_K:
      return {108};
    case t::Q6_K:
      return {208};
    case t::TQ1_0:
      return {52};
    case t::TQ2_0:
      return {64};
    case t::Q4_0:
    case t::Q5_0:
    case t::Q8_0:
    case t::Q1_0:
    case t::Q2_0:
    case t::IQ4_NL:
    case t::IQ2_XXS:
    case t::IQ2_XS:
    case t::IQ2_S:
    case t::IQ3_XXS:
    case t::IQ3_S:
    case t::IQ1_S:
    case t::IQ4_XS:
      return {0};
    default:
      return {};
  }
}

// 1 MiB of whole blocks: random quants, realistic scales; plain types hold values in [-1, 1].
std::vector<uint8_t> make_blocks(uint32_t id, size_t& n_blocks) {
  const auto type = *gguf::tensor_type(id);
  n_blocks = kInputBytes / type.block_bytes;
  std::vector<uint8_t> data(n_blocks * type.block_bytes);
  std::mt19937 rng(12345);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> half_scale(0x2000, 0x37FF);  // about 2^-7 .. 2^-1
  for (size_t b = 0; b < n_blocks; ++b) {
    uint8_t* block = data.data() + b * type.block_bytes;
    const float v = unit(rng);
    switch (id) {
      case t::F32:
        std::memcpy(block, &v, 4);
        break;
      case t::F64: {
        const double dv = v;
        std::memcpy(block, &dv, 8);
        break;
      }
      case t::F16:
        put_u16(block, static_cast<uint16_t>(half_scale(rng) | (rng() & 0x8000)));
        break;
      case t::BF16:
        put_u16(block, static_cast<uint16_t>(std::bit_cast<uint32_t>(v) >> 16));
        break;
      case t::Q8_K: {
        const float d = 0.01f;
        std::memcpy(block, &d, 4);
        break;
      }
      case t::MXFP4:
        block[0] = static_cast<uint8_t>(118 + rng() % 16);
        break;
      case t::IQ1_M:  // d's four nibbles live in the top of the four u16 scales: d = 0x2C00
        block[49] &= 0x0F, block[51] &= 0x0F;
        block[53] = static_cast<uint8_t>((block[53] & 0x0F) | 0xC0);
        block[55] = static_cast<uint8_t>((block[55] & 0x0F) | 0x20);
        break;
      default:
        for (size_t off : half_scale_offsets(id)) {
          put_u16(block + off, static_cast<uint16_t>(half_scale(rng)));
        }
    }
  }
  return data;
}

void bench_decode(benchmark::State& state, uint32_t id) {
  const auto type = *gguf::tensor_type(id);
  size_t n_blocks = 0;
  const std::vector<uint8_t> blocks = make_blocks(id, n_blocks);
  std::vector<float> out(n_blocks * type.block_size);
  for (auto _ : state) {
    gguf::decode_blocks(id, blocks.data(), n_blocks, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(out.size() * sizeof(float)));
}

// One benchmark per decodable type, named Decode/<TYPE>.
const bool kRegistered = [] {
  for (uint32_t id = 0; id < gguf::kTensorTypeCount; ++id) {
    if (!gguf::can_decode(id)) continue;
    const std::string name = "Decode/" + std::string(gguf::tensor_type(id)->name);
    benchmark::RegisterBenchmark(name.c_str(), bench_decode, id);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
