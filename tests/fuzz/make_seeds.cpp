// Writes the fuzzer's seed files into a folder: small models made with the test builders, in
// both byte orders, and a few shapes the parser treats specially (nested arrays, an unknown
// tensor type, no tensors). Usage: make_fuzz_seeds DIR
#include <cstdio>
#include <filesystem>
#include <string>

#include "gguf/writer.hpp"
#include "tests/support/model_builders.hpp"

namespace {

using gguf::OwnedValue;

gguf::Writer mixed_values(bool big_endian) {
  gguf::Writer::Options options;
  options.big_endian = big_endian;
  gguf::Writer w(options);
  w.add("general.architecture", OwnedValue::string("llama"));
  w.set_alignment(64);
  w.add("u8", OwnedValue::u8(7));
  w.add("i16", OwnedValue::i16(-3));
  w.add("f64", OwnedValue::f64(0.1));
  w.add("flag", OwnedValue::boolean(true));
  w.add("nested", OwnedValue::array_of_arrays(
                      {OwnedValue::i32_array({1, 2}), OwnedValue::string_array({"a", "b\n"})}));
  w.add("tokenizer.ggml.tokens", OwnedValue::string_array({"<s>", "a/b", "..", "\x01"}));
  w.add_tensor("t/../x", {4}, 0, std::string(16, '\1'));  // F32
  w.add_tensor("q", {32}, 8, std::string(34, '\2'));      // Q8_0
  w.add_tensor("bf", {2, 2}, 30, std::string(8, '\3'));   // BF16
  w.add_tensor("iq", {256}, 16, std::string(66, '\4'));   // IQ2_XXS
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_seeds DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  test_support::ggufinfo_demo_writer().write_file(dir / "demo.gguf");
  test_support::small_model_writer().write_file(dir / "small.gguf");
  mixed_values(false).write_file(dir / "mixed-le.gguf");
  mixed_values(true).write_file(dir / "mixed-be.gguf");
  gguf::Writer empty;
  empty.write_file(dir / "empty-model.gguf");
  gguf::Writer unknown;
  unknown.add_tensor_raw("unknown-type", {8}, 99, 0);
  unknown.add_tensor("after", {4}, 0, std::string(16, '\0'));
  unknown.write_file(dir / "unknown-type.gguf");
  return 0;
}
