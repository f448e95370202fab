// summary.txt against the seed's printed GgufInfo output (Example 17) plus our documented
// additions, and Example 10's derived figures for Llama 3 8B's numbers.
#include <gtest/gtest.h>

#include <bit>
#include <string>

#include "gguf/parser.hpp"
#include "gguf/render/render.hpp"
#include "tests/support/model_builders.hpp"

namespace {

using gguf::ValueType;

gguf::ModelPtr parse_bytes(std::string bytes) {
  return gguf::parse(gguf::memory_source(std::move(bytes)));
}

gguf::Value u32(uint32_t v) {
  gguf::Value value;
  value.type = ValueType::UINT32;
  value.bits = v;
  return value;
}
gguf::Value f32(float v) {
  gguf::Value value;
  value.type = ValueType::FLOAT32;
  value.bits = std::bit_cast<uint32_t>(v);
  return value;
}
gguf::Value str(std::string_view s) {
  gguf::Value value;
  value.type = ValueType::STRING;
  value.str = s;
  return value;
}

// A model with no tensors and the given metadata, built by hand (Model's fields are public).
std::unique_ptr<gguf::Model> metadata_model(std::vector<gguf::MetadataEntry> metadata) {
  auto model = std::make_unique<gguf::Model>();
  model->n_kv = metadata.size();
  model->metadata = std::move(metadata);
  model->data_offset = 96;
  model->file_size = 96;
  return model;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  EXPECT_EQ(start, text.size()) << "the text must end with a newline";
  return lines;
}

TEST(RenderSummary, GgufInfoDemoFile) {
  // The seed's printed output for its one-tensor demo, with Java's spacing restored from its
  // format strings, then our additions: the share column, byte order and warnings.
  const auto model = parse_bytes(test_support::ggufinfo_demo_writer().to_bytes());
  EXPECT_EQ(gguf::render_summary(*model),
            "GGUF v3, 3 KV pairs, 1 tensors, alignment 32, data at byte 224\n"
            "architecture llama, name (none), file type MOSTLY_Q8_0\n"
            " embedding_length = 64\n"
            " Q8_0     1 tensors            256 params            272 bytes 100.0%\n"
            "parameters 256, tensor data 272 bytes, 8.50 bpw, file 496 bytes\n"
            "byte order little-endian\n"
            "warnings: none\n");
}

TEST(RenderSummary, TinyQ4KMModel) {
  const auto model = parse_bytes(test_support::tiny_q4_k_m_writer().to_bytes());
  // Seed lines verbatim except rope.freq_base (500000, not Java's 500000.0); the three other
  // llama.* keys the builder writes, in file order; the share column; Example 10's figures for
  // 256 / 8 = 32-wide heads: 2 x 4 layers x 2 KV heads x 32 x 2 bytes = 1,024 bytes per token.
  EXPECT_EQ(gguf::render_summary(*model),
            "GGUF v3, 22 KV pairs, 39 tensors, alignment 32, data at byte 5931072\n"
            "architecture llama, name tiny-random-llama, file type MOSTLY_Q4_K_M\n"
            " context_length = 4096\n"
            " embedding_length = 256\n"
            " block_count = 4\n"
            " feed_forward_length = 704\n"
            " attention.head_count = 8\n"
            " attention.head_count_kv = 2\n"
            " rope.freq_base = 500000\n"
            " attention.layer_norm_rms_epsilon = 1e-05\n"
            " vocab_size = 151936\n"
            " rope.dimension_count = 32\n"
            " vocabulary 151936 tokens, chat template true\n"
            " F32      9 tensors          2,304 params          9,216 bytes   0.0%\n"
            " Q4_K    23 tensors     40,960,000 params     23,040,000 bytes  41.4%\n"
            " Q5_0     2 tensors        360,448 params        247,808 bytes   0.4%\n"
            " Q6_K     3 tensors     38,928,384 params     31,933,440 bytes  57.4%\n"
            " Q8_0     2 tensors        360,448 params        382,976 bytes   0.7%\n"
            "parameters 80,611,584, tensor data 55,613,440 bytes, 5.52 bpw, file 61,544,512 bytes\n"
            "head dimension 32\n"
            "query heads per KV head 4\n"
            "KV cache 1,024 bytes per token at F16\n"
            "byte order little-endian\n"
            "warnings: none\n");
}

TEST(RenderSummary, Example10DerivedFiguresForLlama3_8B) {
  auto model = metadata_model({
      {"general.architecture", str("llama"), 0},
      {"llama.block_count", u32(32), 0},
      {"llama.context_length", u32(8192), 0},
      {"llama.embedding_length", u32(4096), 0},
      {"llama.feed_forward_length", u32(14336), 0},
      {"llama.attention.head_count", u32(32), 0},
      {"llama.attention.head_count_kv", u32(8), 0},
      {"llama.rope.freq_base", f32(500000.0f), 0},
      {"llama.attention.layer_norm_rms_epsilon", f32(1e-5f), 0},
      {"general.file_type", u32(15), 0},
  });
  const auto lines = lines_of(gguf::render_summary(*model));
  const std::vector<std::string> expected = {
      "GGUF v3, 10 KV pairs, 0 tensors, alignment 32, data at byte 96",
      "architecture llama, name (none), file type MOSTLY_Q4_K_M",
      " context_length = 8192",
      " embedding_length = 4096",
      " block_count = 32",
      " feed_forward_length = 14336",
      " attention.head_count = 32",
      " attention.head_count_kv = 8",
      " rope.freq_base = 500000",
      " attention.layer_norm_rms_epsilon = 1e-05",
      "parameters 0, tensor data 0 bytes, 0.00 bpw, file 96 bytes",
      "head dimension 128",
      "query heads per KV head 4",
      "KV cache 131,072 bytes per token at F16",
      "byte order little-endian",
      "warnings: none",
  };
  EXPECT_EQ(lines, expected);
}

TEST(RenderSummary, KeyLengthAndDefaultKvHeads) {
  // attention.key_length wins over embedding / heads; without head_count_kv every head has
  // its own keys and values: 2 x 32 x 32 x 64 x 2 = 262,144 bytes per token.
  auto model = metadata_model({
      {"general.architecture", str("llama"), 0},
      {"llama.block_count", u32(32), 0},
      {"llama.embedding_length", u32(4096), 0},
      {"llama.attention.head_count", u32(32), 0},
      {"llama.attention.key_length", u32(64), 0},
  });
  const std::string text = gguf::render_summary(*model);
  EXPECT_NE(text.find("\nhead dimension 64\nquery heads per KV head 1\n"
                      "KV cache 262,144 bytes per token at F16\n"),
            std::string::npos)
      << text;
}

TEST(RenderSummary, NoDerivedFiguresWithoutTheirKeys) {
  auto model = metadata_model(
      {{"general.architecture", str("llama"), 0}, {"llama.embedding_length", u32(4096), 0}});
  const std::string text = gguf::render_summary(*model);
  EXPECT_EQ(text.find("head dimension"), std::string::npos) << text;
  EXPECT_EQ(text.find("query heads"), std::string::npos) << text;
  EXPECT_EQ(text.find("KV cache"), std::string::npos) << text;
}

TEST(RenderSummary, MissingIdentityAndUnlistedFileType) {
  auto model = metadata_model({{"general.file_type", u32(99), 0}});
  model->big_endian = true;
  EXPECT_EQ(gguf::render_summary(*model),
            "GGUF v3, 1 KV pairs, 0 tensors, alignment 32, data at byte 96\n"
            "architecture (none), name (none), file type 99\n"
            "parameters 0, tensor data 0 bytes, 0.00 bpw, file 96 bytes\n"
            "byte order big-endian\n"
            "warnings: none\n");
}

TEST(RenderSummary, OtherArchitectureKeysInFileOrder) {
  std::string ints;
  for (int i = 0; i < 3; ++i) ints += std::string("\x05\x00\x00\x00", 4);
  gguf::Value array;
  array.type = ValueType::ARRAY;
  array.array.element_type = ValueType::INT32;
  array.array.count = 3;
  array.array.bytes = ints;
  auto model = metadata_model({
      {"general.architecture", str("phi3"), 0},
      {"phi3.rope.scaling.type", str("yarn"), 0},
      {"phi3.block_count", u32(2), 0},
      {"phi3x.not_ours", u32(7), 0},
      {"phi3.attention.head_count_per_layer", array, 0},
      {"phi3.context_length", u32(128), 0},
  });
  const auto lines = lines_of(gguf::render_summary(*model));
  ASSERT_GE(lines.size(), 6u);
  EXPECT_EQ(lines[2], " context_length = 128");
  EXPECT_EQ(lines[3], " block_count = 2");
  EXPECT_EQ(lines[4], " rope.scaling.type = yarn");
  EXPECT_EQ(lines[5], " attention.head_count_per_layer = [3 x INT32]");
  EXPECT_EQ(lines[6], "parameters 0, tensor data 0 bytes, 0.00 bpw, file 96 bytes");
}

TEST(RenderSummary, UnknownTypesPartialDataAndWarnings) {
  auto model = metadata_model({});
  gguf::TensorInfo known;
  known.name = "a";
  known.type_id = gguf::type_id::F32;
  known.elements = 1000;
  known.bytes = 4000;
  known.bytes_present = 3000;  // the file stops 1,000 bytes short
  gguf::TensorInfo unknown;
  unknown.name = "b";
  unknown.type_id = 200;
  unknown.type_known = false;
  unknown.elements = 1000;
  unknown.bytes = 1000;
  unknown.bytes_present = 1000;
  model->tensors = {known, unknown};
  model->n_tensors = 2;
  model->warnings = {"tensor 'b': unknown type 200", "tensor 'a': data runs past the end\nof it"};
  // 5,000 bytes for 2,000 params: 20.00 bpw. Shares 80% and 20%.
  EXPECT_EQ(gguf::render_summary(*model),
            "GGUF v3, 0 KV pairs, 2 tensors, alignment 32, data at byte 96\n"
            "architecture (none), name (none), file type (none)\n"
            " F32      1 tensors          1,000 params          4,000 bytes  80.0%\n"
            " unknown   1 tensors          1,000 params          1,000 bytes  20.0%\n"
            "parameters 2,000, tensor data 5,000 bytes, 20.00 bpw, file 96 bytes\n"
            "byte order little-endian\n"
            "missing 1,000 bytes of tensor data (partial file)\n"
            "warnings: 2\n"
            " - tensor 'b': unknown type 200\n"
            " - tensor 'a': data runs past the end\\nof it\n");
  EXPECT_EQ(gguf::render_warnings(*model),
            "tensor 'b': unknown type 200\n"
            "tensor 'a': data runs past the end\\nof it\n");
}

TEST(RenderWarnings, EmptyWhenThereAreNone) {
  auto model = metadata_model({});
  EXPECT_EQ(gguf::render_warnings(*model), "");
}

}  // namespace
