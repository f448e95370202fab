// The hf/ directory of the tree, without mounting: every mapped tensor's data is the original
// Hugging Face matrix (un-permuted for llama, decoded for Q8_0), model.safetensors holds the same
// bytes, config.json and unmapped.txt say what they should.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>

#include "fs/tree/model_tree.hpp"
#include "gguf/decode/decode.hpp"
#include "gguf/split.hpp"
#include "tests/support/hf_models.hpp"
#include "tests/support/model_builders.hpp"
#include "tests/support/npy_reader.hpp"

namespace gguffs {
namespace {

std::string read_file(const Tree& tree, const std::string& path) {
  const auto i = tree.find(path);
  if (!i) throw std::runtime_error("no " + path);
  const auto& content = tree.node(*i).content;
  ReadBuffer out(content->size());
  content->read(0, content->size(), out);
  return out.to_string();
}

struct Case {
  std::string arch;
  uint32_t n_head, n_head_kv;
};

class HfTree : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const Case c = GetParam();
    model_ = test_support::hf_test_model(c.arch, c.n_head, c.n_head_kv);
    parsed_ = test_support::parse_bytes(model_.writer.to_bytes());
    tree_ = build_model_tree(parsed_, Owner{});
  }
  test_support::HfTestModel model_;
  gguf::ModelPtr parsed_;
  std::shared_ptr<const Tree> tree_;
};

TEST_P(HfTree, EveryTensorGivesBackTheHuggingFaceOriginal) {
  ASSERT_EQ(model_.tensors.size(), 23u);
  for (const auto& [name, want] : model_.tensors) {
    EXPECT_TRUE(read_file(*tree_, "hf/" + name + "/data") == want.data) << name;
    const std::string info = read_file(*tree_, "hf/" + name + "/info");
    EXPECT_NE(info.find("\ndtype: " + want.dtype + "\n"), std::string::npos) << info;
  }
}

TEST_P(HfTree, LlamaStoresQkPermutedAndTheOthersDoNot) {
  const std::string stored = read_file(*tree_, "tensors/blk.0.attn_q.weight/data");
  const std::string hf = model_.tensors.at("model.layers.0.self_attn.q_proj.weight").data;
  EXPECT_EQ(stored == hf, GetParam().arch != "llama");
  const std::string info = read_file(*tree_, "hf/model.layers.0.self_attn.k_proj.weight/info");
  if (GetParam().arch == "llama")
    EXPECT_NE(info.find("rows: un-permuted from llama.cpp's Q/K order (" +
                        std::to_string(GetParam().n_head_kv) + " heads)\n"),
              std::string::npos)
        << info;
  else
    EXPECT_NE(info.find("rows: as stored\n"), std::string::npos) << info;
}

TEST_P(HfTree, SafetensorsHoldsTheSameBytes) {
  const std::string file = read_file(*tree_, "hf/model.safetensors");
  ASSERT_GE(file.size(), 8u);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | static_cast<uint8_t>(file[i]);
  ASSERT_LE(8 + n, file.size());
  EXPECT_EQ((8 + n) % 8, 0u);
  const auto header = nlohmann::json::parse(file.substr(8, n));
  EXPECT_EQ(header["__metadata__"], nlohmann::json({{"format", "pt"}}));
  const std::string buffer = file.substr(8 + n);
  ASSERT_EQ(header.size(), model_.tensors.size() + 1);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const auto& [name, want] : model_.tensors) {
    ASSERT_TRUE(header.contains(name)) << name;
    const auto& e = header[name];
    EXPECT_EQ(e["dtype"], want.dtype) << name;
    EXPECT_EQ(e["shape"].get<std::vector<uint64_t>>(), want.shape) << name;
    const auto begin = e["data_offsets"][0].get<uint64_t>();
    const auto end = e["data_offsets"][1].get<uint64_t>();
    EXPECT_EQ(begin % 8, 0u) << name;
    ASSERT_LE(end, buffer.size());
    EXPECT_TRUE(buffer.substr(begin, end - begin) == want.data) << name;
    ranges.emplace_back(begin, end);
  }
  // safetensors' rule: contiguous from 0 to the end, no gaps.
  std::sort(ranges.begin(), ranges.end());
  uint64_t at = 0;
  for (const auto& [begin, end] : ranges) {
    EXPECT_EQ(begin, at);
    at = end;
  }
  EXPECT_EQ(at, buffer.size());
  // The first tensor (token_embd, spliced) sits at its model file offset modulo 4 KiB.
  const auto first = header["model.embed_tokens.weight"]["data_offsets"][0].get<uint64_t>();
  EXPECT_EQ(first, 0u);
  EXPECT_EQ((8 + n) % 4096, parsed_->tensors.front().file_offset % 4096);
}

TEST_P(HfTree, NpyFilesHoldTheValues) {
  for (const std::string name :
       {"model.layers.0.self_attn.q_proj.weight", "model.layers.1.self_attn.k_proj.weight",
        "model.layers.1.mlp.gate_proj.weight"}) {
    const auto& want = model_.tensors.at(name);
    const std::string file = read_file(*tree_, "hf/" + name + "/data.npy");
    const auto npy = test_support::parse_npy(file);
    EXPECT_EQ(npy.dict.at("shape"),
              "(" + std::to_string(want.shape[0]) + ", " + std::to_string(want.shape[1]) + ")")
        << name;
    const std::string payload = file.substr(npy.header_size);
    if (want.dtype == "BF16") {  // widened to float32
      EXPECT_EQ(npy.dict.at("descr"), "'<f4'");
      ASSERT_EQ(payload.size(), want.data.size() * 2);
      for (size_t i = 0; i < want.data.size() / 2; ++i) {
        uint16_t h;
        std::memcpy(&h, want.data.data() + 2 * i, 2);
        float f;
        std::memcpy(&f, payload.data() + 4 * i, 4);
        ASSERT_EQ(f, gguf::bf16_to_fp32(h)) << name << " " << i;
      }
    } else {
      EXPECT_EQ(npy.dict.at("descr"), want.dtype == "F16" ? "'<f2'" : "'<f4'");
      EXPECT_TRUE(payload == want.data) << name;
    }
  }
}

TEST_P(HfTree, ConfigUnmappedInfoAndIndexes) {
  const Case c = GetParam();
  const auto config = nlohmann::json::parse(read_file(*tree_, "hf/config.json"));
  EXPECT_EQ(config["model_type"], c.arch);
  EXPECT_EQ(config["hidden_size"], 64);
  EXPECT_EQ(config["intermediate_size"], 32);
  EXPECT_EQ(config["num_hidden_layers"], 2);
  EXPECT_EQ(config["num_attention_heads"], c.n_head);
  EXPECT_EQ(config["num_key_value_heads"], c.n_head_kv);
  EXPECT_EQ(config["head_dim"], 16);
  EXPECT_EQ(config["rms_norm_eps"], 1e-5);  // the float32 1e-5f written as Python reads it
  EXPECT_EQ(config["rope_theta"], 500000);
  EXPECT_EQ(config["max_position_embeddings"], 128);
  EXPECT_EQ(config["vocab_size"], 8);
  EXPECT_EQ(config["tie_word_embeddings"], false);
  EXPECT_EQ(config["bos_token_id"], 1);
  EXPECT_EQ(config["eos_token_id"], 2);
  EXPECT_EQ(config["torch_dtype"], "float16");
  EXPECT_EQ(read_file(*tree_, "hf/unmapped.txt"),
            "rope_freqs.weight: cannot map tensor rope_freqs.weight\n");
  const std::string info = read_file(*tree_, "tensors/blk.1.ffn_down.weight/info");
  EXPECT_NE(info.find("\nhf_name: model.layers.1.mlp.down_proj.weight\n"), std::string::npos);
  EXPECT_EQ(read_file(*tree_, "tensors/rope_freqs.weight/info").find("hf_name"), std::string::npos);
  const auto tensors = nlohmann::json::parse(read_file(*tree_, "tensors.json"));
  for (const auto& t : tensors) {
    if (t["name"] == "rope_freqs.weight")
      EXPECT_TRUE(t["hf_name"].is_null());
    else
      EXPECT_TRUE(model_.tensors.count(t["hf_name"].get<std::string>())) << t;
  }
  const std::string tsv = read_file(*tree_, "tensors.tsv");
  EXPECT_NE(tsv.find("\ttoken_embd.weight"), 0u);
  EXPECT_NE(tsv.find("\tmodel.embed_tokens.weight\n"), std::string::npos) << tsv;
}

INSTANTIATE_TEST_SUITE_P(Architectures, HfTree,
                         ::testing::Values(Case{"llama", 4, 2}, Case{"llama", 4, 4},
                                           Case{"qwen2", 4, 2}),
                         [](const auto& info) {
                           return info.param.arch + "_" + std::to_string(info.param.n_head) + "_" +
                                  std::to_string(info.param.n_head_kv);
                         });

// -o hf_dtype=F16 / BF16: quantized tensors rounded from their float32 values.
TEST(HfTreeDtype, QuantizedTensorsDecodeToTheChosenType) {
  auto model = test_support::hf_test_model("llama", 4, 2);
  const auto parsed = test_support::parse_bytes(model.writer.to_bytes());
  for (const auto dtype : {gguf::hf::Dtype::F16, gguf::hf::Dtype::BF16}) {
    const auto tree = build_model_tree(parsed, Owner{}, TreeOptions{dtype});
    const std::string name = "model.layers.1.self_attn.q_proj.weight";
    const std::string& f32 = model.tensors.at(name).data;
    const std::string got = read_file(*tree, "hf/" + name + "/data");
    ASSERT_EQ(got.size(), f32.size() / 2);
    for (size_t i = 0; i < got.size() / 2; ++i) {
      float want;
      std::memcpy(&want, f32.data() + 4 * i, 4);
      uint16_t h;
      std::memcpy(&h, got.data() + 2 * i, 2);
      // The values are small integers times powers of two: exact in both types.
      ASSERT_EQ(dtype == gguf::hf::Dtype::F16 ? gguf::fp16_to_fp32(h) : gguf::bf16_to_fp32(h), want)
          << i;
    }
    EXPECT_NE(read_file(*tree, "hf/" + name + "/info")
                  .find("\ndtype: " + std::string(gguf::hf::dtype_name(dtype)) + "\n"),
              std::string::npos);
  }
}

TEST(HfTreeConfig, AMissingKeyMeansNoConfigAndSaysWhich) {
  gguf::Writer w;
  w.add("general.architecture", gguf::OwnedValue::string("llama"));
  w.add("llama.block_count", gguf::OwnedValue::u32(1));
  w.add_tensor("token_embd.weight", {4, 2}, gguf::type_id::F32, std::string(32, '\0'));
  const auto tree = build_model_tree(test_support::parse_bytes(w.to_bytes()), Owner{});
  EXPECT_FALSE(tree->find("hf/config.json").has_value());
  EXPECT_EQ(read_file(*tree, "hf/unmapped.txt"),
            "config.json: missing key llama.embedding_length (an unsigned integer)\n");
  EXPECT_TRUE(tree->find("hf/model.embed_tokens.weight/data").has_value());
}

TEST(HfTreeConfig, AnArchitectureWithoutNames) {
  gguf::Writer w;
  w.add("general.architecture", gguf::OwnedValue::string("gpt2"));
  w.add_tensor("token_embd.weight", {4, 2}, gguf::type_id::F32, std::string(32, '\0'));
  const auto tree = build_model_tree(test_support::parse_bytes(w.to_bytes()), Owner{});
  EXPECT_EQ(read_file(*tree, "hf/unmapped.txt"),
            "architecture 'gpt2' has no Hugging Face names (known: llama, qwen2, qwen3)\n");
  EXPECT_EQ(tree->node(*tree->find("hf")).children.size(), 2u);  // safetensors, unmapped.txt
  // An empty safetensors file is still valid: the header and no tensors.
  const std::string st = read_file(*tree, "hf/model.safetensors");
  EXPECT_EQ(st.substr(8), R"({"__metadata__":{"format":"pt"}})");  // 32 bytes: no padding
}

}  // namespace
}  // namespace gguffs

namespace gguffs {
namespace {

// A download cut short: the tensors it lacks fail with EIO in hf/ too, like their data files.
TEST(HfTreePartial, MissingBytesAreAnIoError) {
  auto model = test_support::hf_test_model("llama", 4, 2);
  std::string bytes = model.writer.to_bytes();
  bytes.resize(bytes.size() - 200);  // rope_freqs and the end of output.weight
  const auto tree = build_model_tree(test_support::parse_bytes(bytes), Owner{});
  const auto& content = tree->node(*tree->find("hf/lm_head.weight/data")).content;
  ReadBuffer out(content->size());
  EXPECT_THROW(content->read(0, content->size(), out), std::system_error);
  EXPECT_TRUE(read_file(*tree, "hf/model.norm.weight/data") ==
              model.tensors.at("model.norm.weight").data);
}

// A big-endian file: F16 values are byte-swapped back to the little-endian bytes safetensors
// and numpy expect, with the same values.
TEST(HfTreeBigEndian, StoredFloatsComeOutLittleEndian) {
  gguf::Writer::Options options;
  options.big_endian = true;
  gguf::Writer w(options);
  w.add("general.architecture", gguf::OwnedValue::string("llama"));
  // 1.0, -2.0, 0.5, 65504 as big-endian binary16.
  w.add_tensor("output_norm.weight", {4}, gguf::type_id::F16,
               std::string("\x3c\x00\xc0\x00\x38\x00\x7b\xff", 8));
  const auto tree = build_model_tree(test_support::parse_bytes(w.to_bytes()), Owner{});
  EXPECT_EQ(read_file(*tree, "hf/model.norm.weight/data"),
            std::string("\x00\x3c\x00\xc0\x00\x38\xff\x7b", 8));
  EXPECT_NE(read_file(*tree, "hf/model.norm.weight/info").find("\ndtype: F16\n"),
            std::string::npos);
}

}  // namespace
}  // namespace gguffs
