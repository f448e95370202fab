// Extended attributes through a real mount: getxattr/listxattr as the syscalls see them (size
// probe, ERANGE, ENODATA), and setting or removing refused with EROFS.
#include <gtest/gtest.h>
#include <sys/xattr.h>

#include <cerrno>
#include <string>

#include "tests/mount/mount_fixture.hpp"
#include "tests/support/model_builders.hpp"

namespace {

using gguf::OwnedValue;

class XattrMount : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_MOUNT();
    gguf::Writer w = test_support::small_model_writer();
    w.add("odd/key", OwnedValue::u8(7));
    w.write_file((dir_ / "small.gguf").string());
    mnt_ = std::make_unique<mount_test::MountedModel>(dir_ / "small.gguf");
    ASSERT_TRUE(mnt_->mounted()) << mnt_->result().err;
  }
  std::string path(const std::string& relative) const { return (*mnt_ / relative).string(); }

  test_support::TempDir dir_;
  std::unique_ptr<mount_test::MountedModel> mnt_;
};

std::string get(const std::string& path, const char* name) {
  const ssize_t size = getxattr(path.c_str(), name, nullptr, 0);
  if (size < 0) return "errno " + std::to_string(errno);
  std::string value(static_cast<size_t>(size), '\0');
  const ssize_t n = getxattr(path.c_str(), name, value.data(), value.size());
  if (n != size) return "second read " + std::to_string(n);
  return value;
}

TEST_F(XattrMount, MetadataFilesAndTensorDirectories) {
  EXPECT_EQ(get(path("metadata/general.architecture"), "user.gguf.type"), "STRING");
  EXPECT_EQ(get(path("metadata/llama.context_length"), "user.gguf.type"), "UINT32");
  EXPECT_EQ(get(path("metadata/tokenizer.ggml.tokens"), "user.gguf.type"), "ARRAY[STRING]");
  EXPECT_EQ(get(path("metadata/tokenizer.ggml.tokens"), "user.gguf.count"), "4");
  EXPECT_EQ(get(path("metadata/tokenizer.ggml.token_type"), "user.gguf.type"), "ARRAY[INT32]");
  EXPECT_EQ(get(path("metadata/odd%2Fkey"), "user.gguf.key"), "odd/key");
  EXPECT_EQ(get(path("tensors/output.weight"), "user.gguf.type"), "Q8_0");
  EXPECT_EQ(get(path("tensors/token_embd.weight"), "user.gguf.type"), "F32");
}

TEST_F(XattrMount, ListSizeProbeErangeAndEnodata) {
  const std::string tokens = path("metadata/tokenizer.ggml.tokens");
  const std::string expected("user.gguf.type\0user.gguf.count\0", 31);
  ASSERT_EQ(listxattr(tokens.c_str(), nullptr, 0), 31);
  std::string list(31, '\0');
  ASSERT_EQ(listxattr(tokens.c_str(), list.data(), list.size()), 31);
  EXPECT_EQ(list, expected);
  char small[4];
  EXPECT_EQ(listxattr(tokens.c_str(), small, sizeof small), -1);
  EXPECT_EQ(errno, ERANGE);
  EXPECT_EQ(getxattr(tokens.c_str(), "user.gguf.type", small, sizeof small), -1);
  EXPECT_EQ(errno, ERANGE);
  EXPECT_EQ(getxattr(tokens.c_str(), "user.gguf.key", nullptr, 0), -1);
  EXPECT_EQ(errno, ENODATA);
  // Nothing on the root or on info files.
  EXPECT_EQ(listxattr(path("").c_str(), nullptr, 0), 0);
  EXPECT_EQ(getxattr(path("tensors/output.weight/info").c_str(), "user.gguf.type", nullptr, 0), -1);
  EXPECT_EQ(errno, ENODATA);
}

TEST_F(XattrMount, SettingAndRemovingFailWithErofs) {
  const std::string file = path("metadata/general.architecture");
  EXPECT_EQ(setxattr(file.c_str(), "user.gguf.type", "X", 1, 0), -1);
  EXPECT_EQ(errno, EROFS);
  EXPECT_EQ(setxattr(file.c_str(), "user.new", "X", 1, XATTR_CREATE), -1);
  EXPECT_EQ(errno, EROFS);
  EXPECT_EQ(removexattr(file.c_str(), "user.gguf.type"), -1);
  EXPECT_EQ(errno, EROFS);
  EXPECT_EQ(get(file, "user.gguf.type"), "STRING");
}

TEST_F(XattrMount, IndexFilesReadLikeTheHandComputedText) {
  // Offsets as laid out by hand in tests/unit/render_json_test.cpp.
  EXPECT_EQ(test_support::read_file(*mnt_ / "tensors.tsv"),
            "name\ttype\tne\tshape\telements\tbytes\toffset\tfile_offset\thf_name\n"
            "token_embd.weight\tF32\t4 2\t2 4\t8\t32\t0\t"
            "608\tmodel.embed_tokens.weight\n"
            "blk.0.attn_norm.weight\tF16\t4\t4\t4\t8\t32\t640\t"
            "model.layers.0.input_layernorm.weight\n"
            "output.weight\tQ8_0\t32 1\t1 32\t32\t34\t64\t672\tlm_head.weight\n");
  const std::string json = test_support::read_file(*mnt_ / "metadata.json");
  EXPECT_NE(json.find("\n  \"odd/key\": {\"type\": \"UINT8\", \"value\": 7}\n}\n"),
            std::string::npos)
      << json;
}

}  // namespace
