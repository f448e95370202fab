// What the interop tests share: the real clients (llama.cpp through node-llama-cpp, Hugging Face's
// @huggingface/gguf, Debian's numpy), whether each is available, and the tiny llama models.
//
// A missing client skips its test with the reason outside CI; under CI=true it fails the test,
// so CI can never pass by skipping.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace interop {

bool in_ci();
// "" when the npm clients are installed in build/interop-npm (installing them on first use),
// else why not.
std::string node_clients_unavailable();
// "" when Debian's python3 (/usr/bin/python3) imports numpy, else why not.
std::string numpy_unavailable();
// "" when it also imports torch.
std::string torch_unavailable();
// Debian's python3, the one python3-numpy and python3-torch install into.
std::string debian_python();

// The tiny llama of tests/support/tiny_llama.hpp (mixed types), written once into the build
// folder, and its 3 shards cut by llama.cpp's rule (tiny-llama-0000K-of-00003.gguf).
std::filesystem::path tiny_llama_model();
std::vector<std::filesystem::path> tiny_llama_shards();
// The same model with F32 norms and F16 matrices only.
std::filesystem::path tiny_llama_float_model();

struct NodeResult {
  int exit_code = -1;
  nlohmann::json json;  // stdout parsed (null when it is not JSON)
  std::string err;
};
// node build/interop-npm/<script> args...
NodeResult run_node_script(const std::string& script, const std::vector<std::string>& args);
// tests/interop/llama.mjs on model (see its header for args and output). Fails the test when
// llama.cpp does not load the model.
nlohmann::json run_llama(const std::filesystem::path& model, const std::vector<std::string>& args);

}  // namespace interop

// Skips (outside CI) or fails (CI=true) the current test when why_missing is not empty.
#define REQUIRE_TOOL(why_missing)                                                              \
  do {                                                                                         \
    const std::string interop_why_ = (why_missing);                                            \
    if (!interop_why_.empty()) {                                                               \
      if (interop::in_ci()) FAIL() << interop_why_ << " (a missing tool fails under CI=true)"; \
      GTEST_SKIP() << interop_why_;                                                            \
    }                                                                                          \
  } while (0)
