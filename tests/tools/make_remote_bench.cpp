// Writes the inputs of `scripts/bench remote` into a folder:
//   vocab-llama3.gguf   a vocabulary the size of Llama 3's (128,256 tokens, 280,147 merges):
//                       about 8 MB of header
//   tensor-256m.gguf    one 256 MiB F16 tensor, for sequential reads
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "gguf/writer.hpp"
#include "tests/support/model_builders.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_remote_bench OUTDIR\n");
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    test_support::llama3_vocab_writer().write_file((dir / "vocab-llama3.gguf").string());
    std::string bytes(size_t{256} << 20, '\0');
    std::mt19937_64 rng(42);
    for (size_t i = 0; i + 8 <= bytes.size(); i += 8) {
      const uint64_t v = rng() & 0x3BFF3BFF3BFF3BFFull;  // finite F16 values
      std::memcpy(bytes.data() + i, &v, 8);
    }
    gguf::Writer w;
    w.add("general.architecture", gguf::OwnedValue::string("llama"));
    w.add_tensor("big.weight", {8192, bytes.size() / 2 / 8192}, gguf::type_id::F16, bytes);
    w.write_file((dir / "tensor-256m.gguf").string());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_remote_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
