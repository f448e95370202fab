// Writes the input of `scripts/bench edit`: a model with a Llama-3-sized vocabulary (128,256
// tokens, 280,147 merges), a chat template and 512 MiB of tensor data (two F16 tensors of
// non-zero bytes: zeros would be written as holes, which cp copies for free).
//   make_edit_bench OUT.gguf
#include <cstdio>
#include <exception>
#include <string>

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
    for (int i = 0; i < 2; ++i) {
      std::string bytes(size_t{16384} * 8192 * 2, '\0');
      for (size_t k = 0; k < bytes.size(); ++k) bytes[k] = static_cast<char>((k * 131 + i) >> 3);
      w.add_tensor("big." + std::to_string(i) + ".weight", {16384, 8192}, gguf::type_id::F16,
                   std::move(bytes));
    }
    w.write_file(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_edit_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
