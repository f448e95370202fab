// Writes the split-model benchmark input (scripts/bench split): three shards of about 300 MB,
// bench-split-0000K-of-00003.gguf in OUTDIR, as gguf-split lays them out (all metadata in the
// first shard; split.no, split.count, split.tensors.count in each). Each shard holds 10 F16
// tensors of 30 MiB (1536 x 10240) with non-zero bytes, plus one odd-sized F32 tensor so the
// merged file has padding between shards.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "gguf/writer.hpp"

namespace {

std::string pattern(uint64_t size, uint64_t seed) {
  std::string out(size, '\0');
  std::mt19937_64 rng(seed);
  for (uint64_t i = 0; i + 8 <= size; i += 8) {
    const uint64_t v = rng();
    std::memcpy(out.data() + i, &v, 8);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_split_bench OUTDIR\n");
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    constexpr uint16_t kShards = 3;
    constexpr int kTensorsPerShard = 10;
    for (uint16_t no = 0; no < kShards; ++no) {
      using gguf::OwnedValue;
      gguf::Writer w;
      if (no == 0) {
        w.add("general.architecture", OwnedValue::string("llama"));
        w.add("general.name", OwnedValue::string("split-bench"));
      }
      w.add("split.no", OwnedValue::u16(no));
      w.add("split.count", OwnedValue::u16(kShards));
      w.add("split.tensors.count", OwnedValue::i32(kShards * (kTensorsPerShard + 1)));
      for (int i = 0; i < kTensorsPerShard; ++i) {
        const std::string name = "blk." + std::to_string(no * kTensorsPerShard + i) + ".weight";
        w.add_tensor(name, {1536, 10240}, gguf::type_id::F16,
                     pattern(1536ull * 10240 * 2, no * 100 + i));
      }
      w.add_tensor("shard" + std::to_string(no) + ".odd", {7}, gguf::type_id::F32,
                   pattern(28, 999 + no));
      char name[64];
      std::snprintf(name, sizeof name, "bench-split-%05d-of-%05d.gguf", no + 1, kShards);
      w.write_file((dir / name).string());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_split_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
