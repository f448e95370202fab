// Hugging Face's own parser (@huggingface/gguf 0.4.6) reads MNT/model.gguf, of a single file and
// of a split model merged by the mount. What it reads must equal what it reads from the original
// files, and what gguffs' metadata.json and tensors.json say.
#include <algorithm>
#include <cctype>
#include <map>

#include <gtest/gtest.h>

#include "tests/interop/interop_support.hpp"
#include "tests/mount/mount_fixture.hpp"
#include "tests/support/test_support.hpp"

namespace {

using mount_test::MountedModel;
using nlohmann::json;

json hf_parse(const std::filesystem::path& file) {
  const auto r = interop::run_node_script("hf_gguf.mjs", {file.string()});
  EXPECT_EQ(r.exit_code, 0) << "@huggingface/gguf on " << file << ": " << r.err;
  EXPECT_TRUE(r.json.is_object()) << r.err;
  return r.json;
}

json read_json(const std::filesystem::path& path) {
  return json::parse(test_support::read_file(path));
}

// A JSON integer as its decimal text: hf.js gives 64-bit values as strings, the rest as numbers.
std::string decimal(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

bool is_integer_type(const std::string& t) {
  return t == "UINT8" || t == "INT8" || t == "UINT16" || t == "INT16" || t == "UINT32" ||
         t == "INT32" || t == "UINT64" || t == "INT64";
}

// One value of type t as gguffs renders it in metadata.json (ours) and as hf.js read it.
void expect_same_scalar(const std::string& t, const json& ours, const json& hf,
                        const std::string& where) {
  SCOPED_TRACE(where);
  if (is_integer_type(t)) {
    EXPECT_EQ(decimal(ours), decimal(hf));
  } else if (t == "FLOAT32" || t == "FLOAT64") {
    if (ours.is_string()) {  // "nan", "inf", "-inf": JSON.stringify writes null for them
      EXPECT_TRUE(hf.is_null()) << hf.dump();
    } else if (t == "FLOAT32") {
      // gguffs prints the shortest text that reads back to the same float32; hf.js widens the
      // float32 to a double. Both must be the same float32.
      EXPECT_EQ(static_cast<float>(ours.get<double>()), static_cast<float>(hf.get<double>()));
    } else {
      EXPECT_EQ(ours.get<double>(), hf.get<double>());
    }
  } else {  // STRING, BOOL
    EXPECT_EQ(ours, hf);
  }
}

// metadata.json of a mount against hf.js's metadata of its model.gguf. A split model's
// metadata.json also lists the first shard's split.* keys, which the merged file leaves out.
void expect_metadata_matches(const json& metadata_json, const json& hf_metadata) {
  size_t keys = 0;
  for (const auto& [key, hf_value] : hf_metadata.items()) {
    if (key == "version" || key == "tensor_count" || key == "kv_count") continue;
    ++keys;
    ASSERT_TRUE(metadata_json.contains(key)) << "metadata.json lacks " << key;
    const json& ours = metadata_json[key];
    const std::string type = ours["type"];
    if (type != "ARRAY") {
      expect_same_scalar(type, ours["value"], hf_value, key);
      continue;
    }
    const std::string element = ours["element_type"];
    ASSERT_TRUE(hf_value.is_array()) << key;
    ASSERT_EQ(ours["value"].size(), hf_value.size()) << key;
    EXPECT_EQ(ours["count"], hf_value.size()) << key;
    for (size_t i = 0; i < hf_value.size(); ++i) {
      expect_same_scalar(element, ours["value"][i], hf_value[i],
                         key + "[" + std::to_string(i) + "]");
    }
  }
  size_t split_keys = 0;
  for (const auto& [key, value] : metadata_json.items()) split_keys += key.rfind("split.", 0) == 0;
  EXPECT_EQ(keys, metadata_json.size() - split_keys);
  EXPECT_EQ(decimal(hf_metadata["kv_count"]), std::to_string(keys));
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// tensors.json of a mount against hf.js's tensor infos, and both against the expected (name,
// ggml type name, type id) of each tensor from an independent source. A split model's
// tensors.json gives offsets in the shards, not in the merged file: compare_offsets false.
struct ExpectedTensor {
  std::string name, type_name;
  uint32_t type_id;
};
void expect_tensors_match(const json& tensors_json, const json& hf_infos,
                          const std::vector<ExpectedTensor>& expected, bool compare_offsets) {
  ASSERT_EQ(tensors_json.size(), hf_infos.size());
  ASSERT_EQ(hf_infos.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].name);
    const json& ours = tensors_json[i];
    const json& hf = hf_infos[i];
    EXPECT_EQ(hf["name"], expected[i].name);
    EXPECT_EQ(ours["name"], expected[i].name);
    EXPECT_EQ(hf["dtype"], expected[i].type_id);
    EXPECT_EQ(upper(ours["type"]), upper(expected[i].type_name));
    ASSERT_EQ(hf["shape"].size(), ours["ne"].size());
    for (size_t d = 0; d < hf["shape"].size(); ++d) {
      EXPECT_EQ(decimal(hf["shape"][d]), decimal(ours["ne"][d]));
    }
    if (compare_offsets) {
      EXPECT_EQ(decimal(hf["offset"]), decimal(ours["offset"]));
    }
  }
}

// The alltypes fixture's tensors as ggml's own manifest lists them.
std::vector<ExpectedTensor> alltypes_expected() {
  std::vector<ExpectedTensor> out;
  for (const auto& row : test_support::alltypes_manifest()) {
    out.push_back({row.name, row.type_name, row.type_id});
  }
  return out;
}

TEST(HfGguf, ReadsSingleModelGgufAsTheOriginalAndAsTheIndexFilesSay) {
  REQUIRE_MOUNT();
  REQUIRE_TOOL(interop::node_clients_unavailable());
  const auto model = test_support::data_file("alltypes/alltypes.gguf");
  MountedModel mnt(model);
  ASSERT_TRUE(mnt.mounted()) << mnt.result().err;

  const json through_mount = hf_parse(mnt / "model.gguf");
  const json original = hf_parse(model);
  ASSERT_TRUE(through_mount.contains("tensorInfos"));
  EXPECT_EQ(through_mount, original);
  expect_metadata_matches(read_json(mnt / "metadata.json"), through_mount["metadata"]);
  expect_tensors_match(read_json(mnt / "tensors.json"), through_mount["tensorInfos"],
                       alltypes_expected(), true);
}

TEST(HfGguf, ReadsMergedModelGgufAsTheShardsTogether) {
  REQUIRE_MOUNT();
  REQUIRE_TOOL(interop::node_clients_unavailable());
  const auto shards = interop::tiny_llama_shards();
  MountedModel mnt(shards[1]);
  ASSERT_TRUE(mnt.mounted()) << mnt.result().err;
  const json merged = hf_parse(mnt / "model.gguf");
  ASSERT_TRUE(merged.contains("tensorInfos"));

  // The shards as hf.js reads them: metadata from the first without the split.* keys, tensors of
  // every shard in order (offsets differ: the merged file has one data section).
  json expected_metadata = json::object();
  std::vector<ExpectedTensor> expected_tensors;
  for (size_t k = 0; k < shards.size(); ++k) {
    const json shard = hf_parse(shards[k]);
    if (k == 0) {
      for (const auto& [key, value] : shard["metadata"].items()) {
        if (key.rfind("split.", 0) != 0) expected_metadata[key] = value;
      }
    }
    for (const auto& info : shard["tensorInfos"]) {
      expected_tensors.push_back({info["name"], "", info["dtype"].get<uint32_t>()});
    }
  }
  // The counts are checked separately: shard 0's describe shard 0.
  expected_metadata["kv_count"] = merged["metadata"]["kv_count"];
  expected_metadata["tensor_count"] = merged["metadata"]["tensor_count"];
  EXPECT_EQ(merged["metadata"], expected_metadata);
  EXPECT_EQ(decimal(merged["metadata"]["tensor_count"]), std::to_string(expected_tensors.size()));

  const json tensors_json = read_json(mnt / "tensors.json");
  for (size_t i = 0; i < expected_tensors.size() && i < tensors_json.size(); ++i) {
    expected_tensors[i].type_name = tensors_json[i]["type"];  // the id is compared independently
  }
  expect_metadata_matches(read_json(mnt / "metadata.json"), merged["metadata"]);
  expect_tensors_match(tensors_json, merged["tensorInfos"], expected_tensors, false);
  // The unsplit original, written in one piece, has the same metadata and packs its tensors the
  // same way: offsets included, hf.js reads the same from both.
  EXPECT_EQ(merged, hf_parse(interop::tiny_llama_model()));
}

}  // namespace
