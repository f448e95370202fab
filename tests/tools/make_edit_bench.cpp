// Writes the input of `scripts/bench edit`: a model with a Llama-3-sized vocabulary (128,256
// tokens, 280,147 merges), a chat template and 512 MiB of tensor data (two zero F16 tensors).
//   make_edit_bench OUT.gguf
#include <cstdio>
#include <exception>

#include "gguf/writer.hpp"
#include "tests/support/model_builders.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_edit_bench OUT.gguf\n");
    return 2;
  }
  try {
    gguf::Writer w = test_support::llama3_vocab_writer();
    w.add("tokenizer.chat_template",
          gguf::OwnedValue::string("{% for m in messages %}{{ m['content'] }}{% endfor %}"));
    w.add_zero_tensor("big.0.weight", {16384, 8192}, gguf::type_id::F16);
    w.add_zero_tensor("big.1.weight", {16384, 8192}, gguf::type_id::F16);
    w.write_file(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_edit_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
