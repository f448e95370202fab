// Writes the benchmark inputs into a folder (scripts/bench calls it):
//   vocab-llama3.gguf   a vocabulary the size of Llama 3's (128,256 tokens, 280,147 merges)
//   many-tensors.gguf   1,000 small tensors, for listing costs
//   big-tensors.gguf    three 512 MiB F16 tensors and one 288 MiB Q4_K tensor, for read rates
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "gguf/writer.hpp"
#include "tests/support/model_builders.hpp"

namespace {

// Bytes that are not all zeros (the page cache does not care, but compressors and readers might).
std::string pattern(uint64_t size, uint32_t seed) {
  std::string out(size, '\0');
  std::mt19937_64 rng(seed);
  for (uint64_t i = 0; i + 8 <= size; i += 8) {
    uint64_t v = rng();
    std::memcpy(out.data() + i, &v, 8);
  }
  return out;
}

// Q4_K blocks with small finite fp16 d and dmin, so decoded values are ordinary numbers.
std::string q4_k_blocks(uint64_t blocks, uint32_t seed) {
  std::string out = pattern(blocks * 144, seed);
  for (uint64_t b = 0; b < blocks; ++b) {
    out[b * 144 + 0] = 0x00;
    out[b * 144 + 1] = 0x20;  // d = fp16 0x2000
    out[b * 144 + 2] = 0x00;
    out[b * 144 + 3] = 0x1C;  // dmin = fp16 0x1C00
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_bench_models OUTDIR\n");
    return 2;
  }
  try {
    std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    test_support::llama3_vocab_writer().write_file(dir / "vocab-llama3.gguf");

    gguf::Writer many;
    many.add("general.architecture", gguf::OwnedValue::string("llama"));
    for (int i = 0; i < 1000; ++i) {
      many.add_tensor("blk." + std::to_string(i / 10) + ".t" + std::to_string(i % 10) + ".weight",
                      {64}, gguf::type_id::F32, pattern(256, i));
    }
    many.write_file(dir / "many-tensors.gguf");

    gguf::Writer big;
    big.add("general.architecture", gguf::OwnedValue::string("llama"));
    const uint64_t f16_elems = uint64_t{256} << 20;  // 512 MiB of F16 each
    for (int i = 0; i < 3; ++i) {
      big.add_tensor("big." + std::to_string(i) + ".weight", {8192, f16_elems / 8192},
                     gguf::type_id::F16, pattern(f16_elems * 2, 100 + i));
    }
    const uint64_t q4k_rows = 4096, q4k_cols = 131072;  // 4096 rows x 512 blocks x 144 B = 288 MiB
    big.add_tensor("big.q4_k.weight", {q4k_cols, q4k_rows}, gguf::type_id::Q4_K,
                   q4_k_blocks(q4k_cols / 256 * q4k_rows, 7));
    big.write_file(dir / "big-tensors.gguf");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_bench_models: %s\n", e.what());
    return 1;
  }
  return 0;
}
