// Writes the interop tests' tiny llama (tests/support/tiny_llama.hpp), and optionally its shards.
//   make_tiny_llama VOCAB.gguf OUT.gguf [--float-only] [--split N]
// --split N also writes OUT-0000K-of-0000N.gguf next to OUT.gguf (OUT without .gguf as prefix).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "tests/support/tiny_llama.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_tiny_llama VOCAB.gguf OUT.gguf [--float-only] [--split N]\n");
    return 2;
  }
  auto types = test_support::TinyLlamaTypes::mixed;
  int split = 0;
  for (int i = 3; i < argc; ++i) {
    if (std::strcmp(argv[i], "--float-only") == 0) {
      types = test_support::TinyLlamaTypes::float_only;
    } else if (std::strcmp(argv[i], "--split") == 0 && i + 1 < argc) {
      split = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "make_tiny_llama: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  try {
    const auto model = test_support::make_tiny_llama(argv[1], types);
    const std::filesystem::path out = argv[2];
    model.write(out);
    if (split > 0) model.write_split(out.parent_path(), out.stem().string(), split);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_tiny_llama: %s\n", e.what());
    return 1;
  }
  return 0;
}
