// The shared fixtures, written by ggml's own tools, against their manifest and known values.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "gguf/parser.hpp"
#include "tests/support/test_support.hpp"

namespace {

using test_support::data_file;

std::string read_range(const gguf::Model& m, uint64_t offset, uint64_t len) {
  std::string out(len, '\0');
  size_t n = m.source->read_at(offset, out.data(), len);
  out.resize(n);
  return out;
}

std::vector<uint64_t> dims(const gguf::TensorInfo& t) {
  return std::vector<uint64_t>(t.ne.begin(), t.ne.begin() + t.n_dims);
}

std::vector<std::string_view> strings(const gguf::Value& v) {
  std::vector<std::string_view> out;
  v.array.for_each([&](uint64_t, const gguf::Value& e) {
    out.push_back(e.str);
    return true;
  });
  return out;
}

TEST(ReaderFixtures, AlltypesMatchesItsManifest) {
  auto m = gguf::parse_file(data_file("alltypes/alltypes.gguf").string());
  auto manifest = test_support::alltypes_manifest();
  ASSERT_EQ(manifest.size(), 52u);
  ASSERT_EQ(m->tensors.size(), manifest.size());
  EXPECT_EQ(m->n_tensors, 52u);
  for (const auto& row : manifest) {
    SCOPED_TRACE(row.name);
    const auto& t = m->tensors.at(row.index);
    EXPECT_EQ(t.name, row.name);
    EXPECT_EQ(t.type_id, row.type_id);
    EXPECT_EQ(dims(t), row.dims);
    EXPECT_EQ(t.elements, row.elements);
    EXPECT_EQ(t.bytes, row.bytes);
    EXPECT_TRUE(t.type_known);
    EXPECT_TRUE(t.data_complete());
    EXPECT_EQ(t.file_offset, m->data_offset + t.offset);
    EXPECT_EQ(t.offset % 32, 0u);
    EXPECT_TRUE(t.warnings.empty());
  }
  EXPECT_TRUE(m->warnings.empty()) << m->warnings.front();
  EXPECT_EQ(m->data_offset % 32, 0u);
}

TEST(ReaderFixtures, AlltypesMetadataHoldsTheSeedsExample4Values) {
  auto m = gguf::parse_file(data_file("alltypes/alltypes.gguf").string());
  EXPECT_EQ(m->version, 3u);
  EXPECT_EQ(m->find("general.architecture")->value.str, "llama");
  EXPECT_EQ(m->find("test.u8")->value.bits, 200u);
  EXPECT_EQ(m->find("test.i8")->value.i64(), -5);
  EXPECT_EQ(m->find("test.u16")->value.bits, 60000u);
  EXPECT_EQ(m->find("test.i16")->value.i64(), -1234);
  EXPECT_EQ(m->find("test.u32")->value.bits, 4294967295u);
  EXPECT_EQ(m->find("test.i32")->value.i64(), -7);
  EXPECT_EQ(m->find("test.u64")->value.bits, 18446744073709551615ULL);
  EXPECT_EQ(m->find("test.i64")->value.i64(), -9000000000LL);
  EXPECT_EQ(m->find("test.f64")->value.f64(), 0.1);
  EXPECT_EQ(m->find("test.str")->value.str, "h\xc3\xa9llo");
  EXPECT_EQ(m->find("llama.feed_forward_length")->value.bits, 704u);
  EXPECT_EQ(m->find("llama.rope.freq_base")->value.f32(), 500000.0f);
}

TEST(ReaderFixtures, SplitShardsHoldTheLlamaTensorsOfAlltypes) {
  auto all = gguf::parse_file(data_file("alltypes/alltypes.gguf").string());
  std::map<std::string, const gguf::TensorInfo*> by_name;
  for (const auto& t : all->tensors) by_name[std::string(t.name)] = &t;

  std::set<std::string> seen;
  for (int i = 1; i <= 3; ++i) {
    std::string path =
        data_file("split/split-0000" + std::to_string(i) + "-of-00003.gguf").string();
    SCOPED_TRACE(path);
    auto m = gguf::parse_file(path);
    EXPECT_TRUE(m->warnings.empty());
    const auto* no = m->find("split.no");
    const auto* count = m->find("split.count");
    const auto* total = m->find("split.tensors.count");
    ASSERT_TRUE(no && count && total);
    EXPECT_EQ(no->value.type, gguf::ValueType::UINT16);
    EXPECT_EQ(no->value.bits, static_cast<uint64_t>(i - 1));
    EXPECT_EQ(count->value.type, gguf::ValueType::UINT16);
    EXPECT_EQ(count->value.bits, 3u);
    EXPECT_EQ(total->value.type, gguf::ValueType::INT32);
    EXPECT_EQ(total->value.i64(), 18);
    // All metadata is in the first shard; the others carry only the three split keys.
    if (i == 1) {
      EXPECT_EQ(m->find("general.architecture")->value.str, "llama");
    } else {
      EXPECT_EQ(m->metadata.size(), 3u);
    }
    for (const auto& t : m->tensors) {
      std::string name(t.name);
      SCOPED_TRACE(name);
      EXPECT_TRUE(seen.insert(name).second) << "in two shards";
      auto it = by_name.find(name);
      ASSERT_NE(it, by_name.end());
      const gguf::TensorInfo& ref = *it->second;
      EXPECT_EQ(t.type_id, ref.type_id);
      EXPECT_EQ(dims(t), dims(ref));
      ASSERT_EQ(t.bytes, ref.bytes);
      EXPECT_TRUE(t.data_complete());
      EXPECT_EQ(read_range(*m, t.file_offset, t.bytes),
                read_range(*all, ref.file_offset, ref.bytes));
    }
  }
  EXPECT_EQ(seen.size(), 18u);
  // The one-layer llama block of the manifest (rows 33 to 44) is all there.
  for (const auto& row : test_support::alltypes_manifest()) {
    if (row.index >= 33 && row.index <= 44) {
      EXPECT_TRUE(seen.count(row.name)) << row.name;
    }
  }
}

TEST(ReaderFixtures, Gpt2VocabularyHasTheRealGpt2Tables) {
  auto m = gguf::parse_file(data_file("gpt2-vocab.gguf").string());
  EXPECT_TRUE(m->warnings.empty());
  EXPECT_EQ(m->n_tensors, 0u);
  const auto* tokens = m->find("tokenizer.ggml.tokens");
  const auto* merges = m->find("tokenizer.ggml.merges");
  ASSERT_TRUE(tokens && merges);
  EXPECT_EQ(tokens->value.array.element_type, gguf::ValueType::STRING);
  ASSERT_EQ(tokens->value.array.count, 50257u);
  ASSERT_EQ(merges->value.array.count, 50000u);
  auto t = strings(tokens->value);
  ASSERT_EQ(t.size(), 50257u);
  EXPECT_EQ(t[0], "!");
  EXPECT_EQ(t[1], "\"");
  EXPECT_EQ(t[198], "\xc4\x8a");  // "Ċ", the byte-level stand-in for "\n"
  EXPECT_EQ(t[220], "\xc4\xa0");  // "Ġ", the space
  EXPECT_EQ(t[256], "\xc4\xa0t");
  EXPECT_EQ(t[262], "\xc4\xa0the");
  EXPECT_EQ(t[995], "\xc4\xa0world");
  EXPECT_EQ(t[15496], "Hello");
  EXPECT_EQ(t[50256], "<|endoftext|>");
  auto mg = strings(merges->value);
  EXPECT_EQ(mg.at(0), "\xc4\xa0 t");  // GPT-2's first merge, which made token 256
  EXPECT_EQ(m->find("tokenizer.ggml.model")->value.str, "gpt2");
}

}  // namespace
