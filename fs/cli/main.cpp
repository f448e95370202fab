// gguffs: mount a GGUF model as a read-only filesystem. See fs/program.hpp.
#include <string>
#include <vector>

#include "fs/cli/program.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return gguffs::run_program(args, GGUFFS_VERSION);
}
