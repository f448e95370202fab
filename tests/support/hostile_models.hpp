// Hostile model files: what a stranger's download may hold, on purpose or by accident. Shared by
// tests/unit/hostile_files_test.cpp (each must be refused cleanly or load and read safely) and
// tests/tools/make_hostile_models.cpp (writes them, for docs/ROBUSTNESS.md's table).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gguf/errors.hpp"

namespace test_support {

struct HostileCase {
  std::string name;         // a file name, e.g. "key-length-max"
  std::string description;  // what is wrong with it
  std::string bytes;
  // How it must end: refused with this kind, or loaded (nullopt).
  std::optional<gguf::FormatError::Kind> refused;
  // A fragment of the refusal message, or of one of the warnings when it loads ("" for none).
  std::string message;
};

std::vector<HostileCase> hostile_cases();

}  // namespace test_support
