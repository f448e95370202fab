// Finding and checking shards: the naming rule (reference §3's examples), the fixture split
// against the single-file alltypes fixture, and each refusal with its message.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "gguf/errors.hpp"
#include "gguf/merged_layout.hpp"
#include "gguf/parser.hpp"
#include "gguf/split.hpp"
#include "tests/support/split_builders.hpp"
#include "tests/support/test_support.hpp"

namespace {

namespace fsys = std::filesystem;
using test_support::data_file;
using test_support::shard_file;
using test_support::split_shard_writer;
using test_support::TempDir;
using test_support::write_split_model;

TEST(ShardName, FollowsLlamaCppsRule) {
  // llama_split_path("/models/ggml-model-q4_0", 2, 4): split_no 2 is the third file.
  EXPECT_EQ(gguf::shard_path("/models/ggml-model-q4_0", 3, 4),
            "/models/ggml-model-q4_0-00003-of-00004.gguf");
  const auto n = gguf::parse_shard_name("/models/ggml-model-q4_0-00003-of-00004.gguf");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->prefix, "/models/ggml-model-q4_0");
  EXPECT_EQ(n->number, 3u);
  EXPECT_EQ(n->count, 4u);
  EXPECT_FALSE(gguf::parse_shard_name("model.gguf"));
  EXPECT_FALSE(gguf::parse_shard_name("-00001-of-00003.gguf"));    // empty prefix
  EXPECT_FALSE(gguf::parse_shard_name("m-0001-of-00003.gguf"));    // 4 digits
  EXPECT_FALSE(gguf::parse_shard_name("m-00001-of-000003.gguf"));  // 6 digits
  EXPECT_FALSE(gguf::parse_shard_name("m-00000-of-00003.gguf"));   // numbers start at 1
  EXPECT_FALSE(gguf::parse_shard_name("m-00004-of-00003.gguf"));   // past the count
  EXPECT_FALSE(gguf::parse_shard_name("m-00001-of-00003.gguf.part"));
  EXPECT_FALSE(gguf::parse_shard_name("m-0000a-of-00003.gguf"));
  EXPECT_TRUE(gguf::parse_shard_name("m-00001-of-00001.gguf"));
}

// The fixture's 18 tensors are the llama tensors of alltypes.gguf (fixtures/README): same names,
// types, shapes and bytes, whichever shard is named.
TEST(SplitFixture, EveryShardNameOpensTheSameEighteenTensors) {
  const auto alltypes = gguf::parse_file(data_file("alltypes/alltypes.gguf").string());
  std::map<std::string, const gguf::TensorInfo*> reference;
  for (const auto& t : alltypes->tensors) reference[std::string(t.name)] = &t;
  const std::string alltypes_path = data_file("alltypes/alltypes.gguf").string();
  for (int k = 1; k <= 3; ++k) {
    const std::string path =
        data_file("split/split-0000" + std::to_string(k) + "-of-00003.gguf").string();
    const gguf::ModelSet set = gguf::open_model_set(path);
    ASSERT_TRUE(set.is_split());
    ASSERT_EQ(set.shards.size(), 3u);
    EXPECT_EQ(set.tensor_count(), 18u);
    EXPECT_EQ(set.total_file_size(), 104800u + 335872u + 5696u);  // ls -l
    ASSERT_NE(set.merged, nullptr);
    EXPECT_EQ(set.first()->find("general.name")->value.str, "oracle-all-types");
    for (size_t s = 0; s < 3; ++s) {
      EXPECT_EQ(fsys::path(set.shards[s]->name()).filename(),
                "split-0000" + std::to_string(s + 1) + "-of-00003.gguf");
      EXPECT_EQ(set.shards[s]->tensors.size(), 6u);
      for (const auto& t : set.shards[s]->tensors) {
        auto it = reference.find(std::string(t.name));
        ASSERT_NE(it, reference.end()) << t.name;
        const gguf::TensorInfo& r = *it->second;
        EXPECT_EQ(t.type_id, r.type_id) << t.name;
        EXPECT_EQ(t.n_dims, r.n_dims) << t.name;
        EXPECT_EQ(t.ne, r.ne) << t.name;
        ASSERT_EQ(t.bytes, r.bytes) << t.name;
        EXPECT_EQ(test_support::read_range(set.shards[s]->name(), t.file_offset, t.bytes),
                  test_support::read_range(alltypes_path, r.file_offset, r.bytes))
            << t.name;
      }
    }
  }
}

TEST(SplitFixture, SingleOptionAndPlainFilesGiveOneModel) {
  const std::string shard2 = data_file("split/split-00002-of-00003.gguf").string();
  const gguf::ModelSet one = gguf::open_model_set(shard2, /*single=*/true);
  EXPECT_FALSE(one.is_split());
  EXPECT_EQ(one.tensor_count(), 6u);
  EXPECT_EQ(one.merged, nullptr);
  EXPECT_FALSE(gguf::open_model_set(data_file("alltypes/alltypes.gguf").string()).is_split());
}

TEST(SplitFixture, SummaryCoversAllShards) {
  const auto set = gguf::open_model_set(data_file("split/split-00003-of-00003.gguf").string());
  const std::string s = gguf::render_set_summary(set);
  // 49 keys in shard 1 minus the 3 split keys; 18 tensors; shard sizes from ls -l.
  EXPECT_EQ(s.rfind("GGUF v3, 46 KV pairs, 18 tensors, alignment 32", 0), 0u) << s;
  EXPECT_NE(s.find(" shard 1 split-00001-of-00003.gguf 104,800 bytes 6 tensors\n"),
            std::string::npos);
  EXPECT_NE(s.find(" shard 2 split-00002-of-00003.gguf 335,872 bytes 6 tensors\n"),
            std::string::npos);
  EXPECT_NE(s.find(" shard 3 split-00003-of-00003.gguf 5,696 bytes 6 tensors\n"),
            std::string::npos);
  // Manifest rows 33-51 without odd/slash/name: their elements sum to 726,168, bytes to 442,656.
  EXPECT_NE(s.find("parameters 726,168, tensor data 442,656 bytes"), std::string::npos) << s;
}

// A refusal: FormatError(split) naming `file`, with every fragment in its message.
void expect_refusal(const fsys::path& open, const fsys::path& file,
                    std::vector<std::string> fragments) {
  try {
    gguf::open_model_set(open.string());
    ADD_FAILURE() << "opened " << open;
  } catch (const gguf::FormatError& e) {
    EXPECT_EQ(e.kind(), gguf::FormatError::Kind::split) << e.what();
    EXPECT_EQ(e.file(), file.string()) << e.what();
    for (const auto& f : fragments) EXPECT_NE(e.message().find(f), std::string::npos) << e.what();
  }
}

TEST(SplitRefusal, MissingShard) {
  TempDir dir;
  const auto paths = write_split_model(dir.path(), "m", 3);
  fsys::remove(paths[1]);
  expect_refusal(paths[0], paths[1], {"shard 2 of 3 is missing or unreadable", "No such file"});
  expect_refusal(paths[2], paths[1], {"shard 2 of 3 is missing"});
}

TEST(SplitRefusal, ShardThatIsNotGguf) {
  TempDir dir;
  const auto paths = write_split_model(dir.path(), "m", 3);
  test_support::write_file(paths[2], "not a model");
  expect_refusal(paths[0], paths[2], {"shard 3 of 3 cannot be read as GGUF", "magic"});
}

TEST(SplitRefusal, RenamedShard) {
  TempDir dir;
  const auto paths = write_split_model(dir.path(), "m", 3);
  // Shard 3's file copied over shard 2's name: split.no 2 in a file named as shard 2.
  fsys::copy_file(paths[2], paths[1], fsys::copy_options::overwrite_existing);
  expect_refusal(paths[0], paths[1],
                 {"split.no is 2 (shard 3) but the file name says shard 2", "renamed"});
  expect_refusal(paths[1], paths[1], {"split.no is 2"});  // named directly, too
}

TEST(SplitRefusal, MismatchedSplitCount) {
  TempDir dir;
  const auto paths = write_split_model(dir.path(), "m", 3);
  gguf::Writer w = split_shard_writer(2, 4, 6);  // says 4 shards
  w.write_file(paths[2].string());
  expect_refusal(paths[0], paths[2], {"split.count is 4 but the file name says 3 shards"});
}

TEST(SplitRefusal, DuplicatedTensor) {
  TempDir dir;
  const auto paths = write_split_model(dir.path(), "m", 3);
  gguf::Writer w = split_shard_writer(2, 3, 7);
  w.add_tensor("blk.0.a", {5}, gguf::type_id::F32, test_support::f32_bytes(0, 5));
  w.write_file(paths[2].string());
  expect_refusal(paths[1], paths[2],
                 {"tensor 'blk.0.a' is also in shard 1 (m-00001-of-00003.gguf)"});
}

TEST(SplitRefusal, WrongTensorTotal) {
  TempDir dir;
  const auto paths = write_split_model(dir.path(), "m", 3);
  split_shard_writer(0, 3, 7).write_file(paths[0].string());
  expect_refusal(paths[2], paths[0], {"split.tensors.count is 7 but the 3 shards hold 6 tensors"});
}

TEST(SplitSet, ValidModelFromEveryShardAndSplitCountOneIsSingle) {
  TempDir dir;
  const auto paths = write_split_model(dir.path(), "m", 3);
  for (const auto& p : paths) {
    const auto set = gguf::open_model_set(p.string());
    ASSERT_EQ(set.shards.size(), 3u);
    EXPECT_EQ(set.merged->n_tensors, 6u);
    EXPECT_EQ(set.merged->size, 576u);  // split_layout_test's hand computation
  }
  const fsys::path lone = shard_file(dir.path(), "one", 0, 1);
  split_shard_writer(0, 1).write_file(lone.string());
  EXPECT_FALSE(gguf::open_model_set(lone.string()).is_split());
  // A shard under a name that does not follow the rule is an ordinary file.
  fsys::copy_file(paths[1], dir / "renamed.gguf");
  EXPECT_FALSE(gguf::open_model_set((dir / "renamed.gguf").string()).is_split());
}

}  // namespace
