// A valid file cut at every byte offset: each prefix is refused with a FormatError or loaded
// with warnings, and never crashes or reads out of bounds (run under ASan in sanitizer builds).
#include <gtest/gtest.h>

#include "gguf/parser.hpp"
#include "gguf/writer.hpp"
#include "tests/support/model_builders.hpp"

namespace {

using gguf::OwnedValue;
using gguf::Writer;

Writer rich_writer(Writer::Options options) {
  Writer w(options);
  w.add("general.architecture", OwnedValue::string("llama"));
  w.add("u64", OwnedValue::u64(UINT64_MAX));
  w.add("f64", OwnedValue::f64(0.25));
  w.add("tokens", OwnedValue::string_array({"<s>", "", "hello"}));
  w.add("nested", OwnedValue::array_of_arrays(
                      {OwnedValue::u32_array({1, 2}), OwnedValue::string_array({"x"})}));
  w.add("scores", OwnedValue::f32_array({0.5f, -1.0f}));
  w.add_tensor("token_embd.weight", {4, 2}, gguf::type_id::F32, std::string(32, '\x01'));
  w.add_tensor("norm", {3}, gguf::type_id::F16, std::string(6, '\x02'));
  w.add_tensor("q", {32, 1}, gguf::type_id::Q8_0, std::string(34, '\x03'));
  return w;
}

void check_every_prefix(const Writer& w) {
  const std::string full = w.to_bytes();
  auto whole = test_support::parse_bytes(full);
  ASSERT_TRUE(whole->warnings.empty());
  uint64_t data_end = 0;
  for (const auto& t : whole->tensors) data_end = std::max(data_end, t.file_offset + t.bytes);

  size_t refused = 0, loaded = 0;
  for (size_t n = 0; n < full.size(); ++n) {
    SCOPED_TRACE(n);
    std::string prefix = full.substr(0, n);
    gguf::ModelPtr m;
    try {
      m = test_support::parse_bytes(prefix);
    } catch (const gguf::FormatError& e) {
      ++refused;
      EXPECT_NE(e.kind(), gguf::FormatError::Kind::io) << e.what();
      continue;
    }
    ++loaded;
    EXPECT_EQ(m->file_size, n);
    // Everything before the end of the tensor infos is needed to load at all.
    EXPECT_GE(n, w.infos_end());
    EXPECT_EQ(m->tensors.size(), whole->tensors.size());
    for (const auto& t : m->tensors) {
      EXPECT_LE(t.bytes_present, t.bytes);
      if (t.bytes_present > 0) {
        EXPECT_LE(t.file_offset + t.bytes_present, n);
      }
    }
    // Only the padding after the last tensor may go missing without a warning.
    if (n < data_end) {
      EXPECT_FALSE(m->warnings.empty());
      EXPECT_GT(m->missing_bytes(), 0u);
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_GT(loaded, 0u);
}

TEST(ReaderTruncation, EveryPrefixOfALittleEndianFile) {
  check_every_prefix(rich_writer({}));
}

TEST(ReaderTruncation, EveryPrefixOfABigEndianFile) {
  check_every_prefix(rich_writer({.big_endian = true}));
}

TEST(ReaderTruncation, EveryPrefixOfTheSmallModel) {
  check_every_prefix(test_support::small_model_writer());
}

// A file with bytes flipped one at a time in the header: refused or loaded, never a crash.
TEST(ReaderTruncation, EverySingleByteCorruptionOfTheHeader) {
  Writer w = rich_writer({});
  std::string full = w.to_bytes();
  uint64_t header_end = w.infos_end();
  for (size_t i = 0; i < header_end; ++i) {
    for (unsigned char x : {0xFFu, 0x80u, 0x01u}) {
      std::string bad = full;
      bad[i] = static_cast<char>(static_cast<unsigned char>(bad[i]) ^ x);
      try {
        auto m = test_support::parse_bytes(bad);
        for (const auto& t : m->tensors) EXPECT_LE(t.bytes_present, t.bytes);
      } catch (const gguf::FormatError&) {
      }
    }
  }
}

}  // namespace
