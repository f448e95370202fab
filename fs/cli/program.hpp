// The whole program behind main(): reads the command line, runs the action, and turns every
// failure into one line on stderr and an exit code (exit_codes.hpp).
#pragma once

#include <string>
#include <vector>

namespace gguffs {

int run_program(const std::vector<std::string>& args, const std::string& version);

}  // namespace gguffs
