// `gguffs check --data MODEL`: the header warnings, then every tensor's bytes validated as
// llama.cpp does with check_tensors (gguf/validate/model_check.hpp), with a progress line on
// stderr when stderr is a terminal.
#pragma once

#include "gguf/split.hpp"

namespace gguffs {

// Prints the report on stdout; returns kExitOk, or kExitInvalidData when llama.cpp would refuse
// the model. Throws what the reads throw.
int run_data_check(const gguf::ModelSet& set);

}  // namespace gguffs
