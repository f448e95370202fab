// metadata.json, tensors.tsv and tensors.json: exact text for small hand-laid-out models, and the
// JSON read back by an independent parser (nlohmann-json) on the real GPT-2 vocabulary.
#include "gguf/render/render_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "gguf/parser.hpp"
#include "tests/support/model_builders.hpp"
#include "tests/support/test_support.hpp"

namespace {

using gguf::OwnedValue;
using test_support::parse_bytes;

gguf::ModelPtr small_model() {
  return parse_bytes(test_support::small_model_writer().to_bytes());
}

gguf::ModelPtr model_with(const std::vector<std::pair<std::string, OwnedValue>>& pairs) {
  gguf::Writer w;
  for (const auto& [key, value] : pairs) w.add(key, value);
  return parse_bytes(w.to_bytes());
}

TEST(TensorsTsv, SmallModelByHand) {
  // Header 24 bytes + 382 bytes of KV pairs + 164 bytes of tensor infos = 570, aligned to 576.
  const auto m = small_model();
  EXPECT_EQ(gguf::render_tensors_tsv({m.get()}),
            "name\ttype\tne\tshape\telements\tbytes\toffset\tfile_offset\thf_name\n"
            "token_embd.weight\tF32\t4 2\t2 4\t8\t32\t0\t576\t\n"
            "blk.0.attn_norm.weight\tF16\t4\t4\t4\t8\t32\t608\t\n"
            "output.weight\tQ8_0\t32 1\t1 32\t32\t34\t64\t640\t\n");
}

TEST(TensorsJson, SmallModelByHand) {
  const auto m = small_model();
  EXPECT_EQ(
      gguf::render_tensors_json({m.get()}),
      "[\n"
      "  {\"name\": \"token_embd.weight\", \"type\": \"F32\", \"ne\": [4, 2], \"shape\": [2, "
      "4], \"elements\": 8, \"bytes\": 32, \"offset\": 0, \"file_offset\": 576, \"hf_name\": "
      "null},\n"
      "  {\"name\": \"blk.0.attn_norm.weight\", \"type\": \"F16\", \"ne\": [4], \"shape\": "
      "[4], \"elements\": 4, \"bytes\": 8, \"offset\": 32, \"file_offset\": 608, \"hf_name\": "
      "null},\n"
      "  {\"name\": \"output.weight\", \"type\": \"Q8_0\", \"ne\": [32, 1], \"shape\": [1, "
      "32], \"elements\": 32, \"bytes\": 34, \"offset\": 64, \"file_offset\": 640, \"hf_name\": "
      "null}\n"
      "]\n");
}

TEST(TensorsIndexes, SeveralModelsInOrderAndNoTensors) {
  const auto a = small_model();
  const auto empty = model_with({{"k", OwnedValue::u8(1)}});
  const std::string tsv = gguf::render_tensors_tsv({a.get(), empty.get(), a.get()});
  EXPECT_EQ(std::count(tsv.begin(), tsv.end(), '\n'), 7);
  EXPECT_EQ(gguf::render_tensors_tsv({empty.get()}),
            "name\ttype\tne\tshape\telements\tbytes\toffset\tfile_offset\thf_name\n");
  EXPECT_EQ(gguf::render_tensors_json({empty.get()}), "[]\n");
}

TEST(TensorsIndexes, NamesAreEscapedAndInvalidUtf8KeepsItsBytes) {
  gguf::Writer w;
  w.add_tensor(std::string("a\tb\\c\n\xff"), {2}, gguf::type_id::I8, std::string(2, '\0'));
  const auto m = parse_bytes(w.to_bytes());
  const std::string tsv = gguf::render_tensors_tsv({m.get()});
  EXPECT_NE(tsv.find("\na\\tb\\\\c\\n\\xff\tI8\t2\t2\t2\t2\t0\t"), std::string::npos) << tsv;
  const std::string json = gguf::render_tensors_json({m.get()});
  EXPECT_NE(
      json.find(R"({"name": "a\\tb\\\\c\\n\\xff", "name_hex": "6109625c630aff", "type": "I8")"),
      std::string::npos)
      << json;
  EXPECT_TRUE(nlohmann::json::accept(json));
}

TEST(MetadataJson, SmallModelByHand) {
  const auto m = small_model();
  EXPECT_EQ(gguf::render_metadata_json(*m),
            "{\n"
            "  \"general.architecture\": {\"type\": \"STRING\", \"value\": \"llama\"},\n"
            "  \"general.name\": {\"type\": \"STRING\", \"value\": \"small-test-model\"},\n"
            "  \"llama.block_count\": {\"type\": \"UINT32\", \"value\": 1},\n"
            "  \"llama.context_length\": {\"type\": \"UINT32\", \"value\": 128},\n"
            "  \"tokenizer.ggml.tokens\": {\"type\": \"ARRAY\", \"element_type\": \"STRING\", "
            "\"count\": 4, \"value\": [\"<s>\", \"</s>\", \"hello\", \"world\"]},\n"
            "  \"tokenizer.ggml.scores\": {\"type\": \"ARRAY\", \"element_type\": \"FLOAT32\", "
            "\"count\": 4, \"value\": [0, 0, -1.5, -2.5]},\n"
            "  \"tokenizer.ggml.token_type\": {\"type\": \"ARRAY\", \"element_type\": \"INT32\", "
            "\"count\": 4, \"value\": [3, 3, 1, 1]}\n"
            "}\n");
}

TEST(MetadataJson, NoKeysIsAnEmptyObject) {
  const auto m = model_with({});
  EXPECT_EQ(gguf::render_metadata_json(*m), "{}\n");
}

TEST(MetadataJson, EveryScalarTypeAtItsLimits) {
  const auto m = model_with({
      {"u8", OwnedValue::u8(255)},
      {"i8", OwnedValue::i8(-128)},
      {"u16", OwnedValue::u16(65535)},
      {"i16", OwnedValue::i16(-32768)},
      {"u32", OwnedValue::u32(4294967295u)},
      {"i32", OwnedValue::i32(std::numeric_limits<int32_t>::min())},
      {"u64", OwnedValue::u64(std::numeric_limits<uint64_t>::max())},
      {"i64", OwnedValue::i64(std::numeric_limits<int64_t>::min())},
      {"f32", OwnedValue::f32(0.1f)},
      {"f64", OwnedValue::f64(1e300)},
      {"yes", OwnedValue::boolean(true)},
      {"no", OwnedValue::boolean(false)},
  });
  EXPECT_EQ(gguf::render_metadata_json(*m),
            "{\n"
            "  \"u8\": {\"type\": \"UINT8\", \"value\": 255},\n"
            "  \"i8\": {\"type\": \"INT8\", \"value\": -128},\n"
            "  \"u16\": {\"type\": \"UINT16\", \"value\": 65535},\n"
            "  \"i16\": {\"type\": \"INT16\", \"value\": -32768},\n"
            "  \"u32\": {\"type\": \"UINT32\", \"value\": 4294967295},\n"
            "  \"i32\": {\"type\": \"INT32\", \"value\": -2147483648},\n"
            "  \"u64\": {\"type\": \"UINT64\", \"value\": 18446744073709551615},\n"
            "  \"i64\": {\"type\": \"INT64\", \"value\": -9223372036854775808},\n"
            "  \"f32\": {\"type\": \"FLOAT32\", \"value\": 0.1},\n"
            "  \"f64\": {\"type\": \"FLOAT64\", \"value\": 1e+300},\n"
            "  \"yes\": {\"type\": \"BOOL\", \"value\": true},\n"
            "  \"no\": {\"type\": \"BOOL\", \"value\": false}\n"
            "}\n");
  // 64-bit extremes survive a real JSON parser exactly.
  const auto j = nlohmann::json::parse(gguf::render_metadata_json(*m));
  EXPECT_EQ(j["u64"]["value"].get<uint64_t>(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(j["i64"]["value"].get<int64_t>(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(j["f32"]["value"].get<double>(), 0.1);
}

TEST(MetadataJson, NonFiniteFloatsAreStrings) {
  const auto m = model_with({
      {"nan", OwnedValue::f32(std::numeric_limits<float>::quiet_NaN())},
      {"ninf", OwnedValue::f64(-std::numeric_limits<double>::infinity())},
      {"arr", OwnedValue::f32_array({1.0f, std::numeric_limits<float>::infinity(), -0.0f})},
  });
  EXPECT_EQ(gguf::render_metadata_json(*m),
            "{\n"
            "  \"nan\": {\"type\": \"FLOAT32\", \"value\": \"nan\"},\n"
            "  \"ninf\": {\"type\": \"FLOAT64\", \"value\": \"-inf\"},\n"
            "  \"arr\": {\"type\": \"ARRAY\", \"element_type\": \"FLOAT32\", \"count\": 3, "
            "\"value\": [1, \"inf\", -0]}\n"
            "}\n");
  EXPECT_TRUE(nlohmann::json::accept(gguf::render_metadata_json(*m)));
}

TEST(MetadataJson, StringsEscapedAndInvalidUtf8AsHex) {
  const auto m = model_with({
      {"text", OwnedValue::string("q\"b\\n\nt\tc\x01\x7f\xc3\xa9")},
      {"bad", OwnedValue::string("a\xff\xfe")},
      {"list", OwnedValue::string_array({"ok", "\xc3", "", "\xe2\x82\xac"})},
  });
  EXPECT_EQ(gguf::render_metadata_json(*m),
            "{\n"
            "  \"text\": {\"type\": \"STRING\", \"value\": "
            "\"q\\\"b\\\\n\\nt\\tc\\u0001\\u007f\xc3\xa9\"},\n"
            "  \"bad\": {\"type\": \"STRING\", \"value_hex\": \"61fffe\"},\n"
            "  \"list\": {\"type\": \"ARRAY\", \"element_type\": \"STRING\", \"count\": 4, "
            "\"value\": [\"ok\", {\"hex\": \"c3\"}, \"\", \"\xe2\x82\xac\"]}\n"
            "}\n");
  const auto j = nlohmann::json::parse(gguf::render_metadata_json(*m));
  EXPECT_EQ(j["text"]["value"].get<std::string>(), "q\"b\\n\nt\tc\x01\x7f\xc3\xa9");
}

TEST(MetadataJson, NestedArraysDescribeThemselves) {
  const auto m = model_with({
      {"nested",
       OwnedValue::array_of_arrays({OwnedValue::i32_array({1, -2}), OwnedValue::i32_array({}),
                                    OwnedValue::string_array({"x"})})},
      {"empty", OwnedValue::u32_array({})},
  });
  EXPECT_EQ(gguf::render_metadata_json(*m),
            "{\n"
            "  \"nested\": {\"type\": \"ARRAY\", \"element_type\": \"ARRAY\", \"count\": 3, "
            "\"value\": [{\"element_type\": \"INT32\", \"count\": 2, \"value\": [1, -2]}, "
            "{\"element_type\": \"INT32\", \"count\": 0, \"value\": []}, "
            "{\"element_type\": \"STRING\", \"count\": 1, \"value\": [\"x\"]}]},\n"
            "  \"empty\": {\"type\": \"ARRAY\", \"element_type\": \"UINT32\", \"count\": 0, "
            "\"value\": []}\n"
            "}\n");
}

TEST(MetadataJson, InvalidAndRepeatedKeysStayDistinct) {
  const auto m = model_with({
      {"k", OwnedValue::u8(1)},
      {"k", OwnedValue::u8(2)},
      {"\xff", OwnedValue::u8(3)},
  });
  EXPECT_EQ(gguf::render_metadata_json(*m),
            "{\n"
            "  \"k\": {\"type\": \"UINT8\", \"value\": 1},\n"
            "  \"k~2\": {\"type\": \"UINT8\", \"key\": \"k\", \"value\": 2},\n"
            "  \"\\\\xff\": {\"type\": \"UINT8\", \"key_hex\": \"ff\", \"value\": 3}\n"
            "}\n");
  EXPECT_EQ(nlohmann::json::parse(gguf::render_metadata_json(*m)).size(), 3u);
}

TEST(MetadataJson, Gpt2VocabularyReadsBackElementForElement) {
  const auto m = gguf::parse_file(test_support::data_file("gpt2-vocab.gguf").string());
  const auto j = nlohmann::json::parse(gguf::render_metadata_json(*m));
  ASSERT_EQ(j.size(), m->metadata.size());
  const auto& tokens = j["tokenizer.ggml.tokens"];
  EXPECT_EQ(tokens["type"], "ARRAY");
  EXPECT_EQ(tokens["element_type"], "STRING");
  EXPECT_EQ(tokens["count"], 50257);
  ASSERT_EQ(tokens["value"].size(), 50257u);
  // The same figures the reader test knows from GPT-2's published vocabulary.
  EXPECT_EQ(tokens["value"][0], "!");
  EXPECT_EQ(tokens["value"][1], "\"");
  EXPECT_EQ(tokens["value"][220], "\xc4\xa0");
  EXPECT_EQ(tokens["value"][995], "\xc4\xa0world");
  EXPECT_EQ(tokens["value"][15496], "Hello");
  EXPECT_EQ(tokens["value"][50256], "<|endoftext|>");
  EXPECT_EQ(j["tokenizer.ggml.merges"]["value"].size(), 50000u);
  EXPECT_EQ(j["tokenizer.ggml.merges"]["value"][0], "\xc4\xa0 t");
  EXPECT_EQ(j["tokenizer.ggml.model"]["value"], "gpt2");
}

TEST(MetadataJson, KeysInFileOrder) {
  const auto m = small_model();
  // nlohmann's default object sorts keys, so find each key's position in the text instead.
  const std::string text = gguf::render_metadata_json(*m);
  size_t last = 0;
  for (const auto& e : m->metadata) {
    const size_t at = text.find("\"" + std::string(e.key) + "\": ");
    ASSERT_NE(at, std::string::npos) << e.key;
    EXPECT_GT(at, last) << e.key;
    last = at;
  }
}

TEST(ValueTypeLabel, ScalarsAndArrays) {
  const auto m = model_with({{"a", OwnedValue::u32(1)},
                             {"b", OwnedValue::string_array({"x"})},
                             {"c", OwnedValue::array_of_arrays({OwnedValue::i32_array({})})},
                             {"d", OwnedValue::string("s")}});
  EXPECT_EQ(gguf::value_type_label(m->metadata[0].value), "UINT32");
  EXPECT_EQ(gguf::value_type_label(m->metadata[1].value), "ARRAY[STRING]");
  EXPECT_EQ(gguf::value_type_label(m->metadata[2].value), "ARRAY[ARRAY]");
  EXPECT_EQ(gguf::value_type_label(m->metadata[3].value), "STRING");
}

}  // namespace
