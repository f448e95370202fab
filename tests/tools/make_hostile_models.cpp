// Writes the hostile model files of tests/support/hostile_models.hpp into a folder, one
// <name>.gguf each, with a list of what each one is (for `gguffs check` by hand and
// docs/ROBUSTNESS.md). Usage: make_hostile_models DIR
#include <cstdio>
#include <filesystem>

#include "tests/support/hostile_models.hpp"
#include "tests/support/test_support.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_hostile_models DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  for (const auto& c : test_support::hostile_cases()) {
    test_support::write_file(dir / (c.name + ".gguf"), c.bytes);
    std::printf("%s\t%s\n", c.name.c_str(), c.description.c_str());
  }
  return 0;
}
