// libFuzzer target: arbitrary bytes through everything a mount does, without FUSE. Parse, build
// the tree, render every text file and read ranges of every other file (data, model.gguf, and
// the decoded files once they exist), exactly as FUSE read requests would.
//
// Expected outcomes: the parser refuses with gguf::FormatError, or a read of bytes the input
// lacks fails with std::system_error(EIO). Anything else (another exception, a sanitizer
// report, a hang) is a bug.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <system_error>

#include "fs/tree/model_tree.hpp"
#include "fs/tree/read_buffer.hpp"
#include "fs/tree/tree.hpp"
#include "gguf/errors.hpp"
#include "gguf/parser.hpp"
#include "gguf/render/render.hpp"
#include "gguf/source/source.hpp"

namespace {

// One FUSE request's worth, as fuse_ops.cpp sizes its ReadBuffer.
constexpr size_t kRequest = 128 * 1024;
// A file is read from its start up to this much; tensors may claim terabytes.
constexpr uint64_t kPrefixBudget = 256 * 1024;

// Small deterministic generator seeded from the input, so a crash reproduces from its file.
struct Mixer {
  uint64_t state;
  uint64_t next() {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// Reads [off, off + len) like one FUSE request; EIO (bytes the input lacks) is an answer.
void read_range(const gguffs::FileContent& content, uint64_t off, size_t len) {
  gguffs::ReadBuffer out(len);
  try {
    content.read(off, len, out);
    const std::string bytes = out.to_string();
    const uint64_t size = content.size();
    const uint64_t expected = off >= size ? 0 : std::min<uint64_t>(len, size - off);
    if (bytes.size() != expected) __builtin_trap();  // a short or long read is a bug
  } catch (const std::system_error& e) {
    if (e.code().value() != EIO) throw;
  }
}

void read_file(const gguffs::FileContent& content, Mixer& mix) {
  const uint64_t size = content.size();
  for (uint64_t off = 0; off < size && off < kPrefixBudget; off += kRequest)
    read_range(content, off, kRequest);
  if (size == 0) return;
  read_range(content, size - 1, kRequest);  // the last byte, and nothing past it
  read_range(content, size, 1);             // at the end: empty
  for (int k = 0; k < 4; ++k) {
    const uint64_t off = mix.next() % size;
    read_range(content, off, 1 + mix.next() % 4096);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  gguf::ModelPtr model;
  try {
    model = gguf::parse(gguf::memory_source(std::move(bytes), "fuzz.gguf"));
  } catch (const gguf::FormatError&) {
    return 0;
  }
  (void)gguf::render_warnings(*model);  // `gguffs check`
  const auto tree = gguffs::build_model_tree(model, gguffs::Owner{});
  Mixer mix{size};
  for (gguffs::Tree::Index i = 0; i < tree->size(); ++i) {
    const gguffs::Node& node = tree->node(i);
    (void)tree->stat_of(i);
    if (tree->find(tree->path_of(i)) != i) __builtin_trap();  // every node reachable by name
    if (!node.is_dir()) read_file(*node.content, mix);
  }
  return 0;
}
