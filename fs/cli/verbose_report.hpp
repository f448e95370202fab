// `-v`: what was parsed, how long it took, and the warnings, on stderr.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "gguf/model.hpp"

namespace gguffs {

// "gguffs: parsed 1 file in 1.23 ms", then per model (shard) "gguffs: NAME: GGUF v3,
// little-endian, 22 KV pairs, 39 tensors, alignment 32, data at byte 5931072, 61544512 bytes,
// 0 warnings", then "gguffs: warning: ..." for each warning.
std::string parse_report(const std::vector<gguf::ModelPtr>& shards,
                         std::chrono::steady_clock::duration took);

// "gguffs: built the tree in 0.42 ms: 1234 files and directories".
std::string tree_report(size_t nodes, std::chrono::steady_clock::duration took);

}  // namespace gguffs
