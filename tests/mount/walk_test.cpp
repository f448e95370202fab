// Mounts the fixtures and walks them: every file against bytes read straight from the model file
// or values known independently of our code.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fs/tree/names.hpp"
#include "gguf/parser.hpp"
#include "gguf/render/render.hpp"
#include "tests/mount/mount_fixture.hpp"

namespace {

namespace fsys = std::filesystem;
using mount_test::MountedModel;
using test_support::data_file;
using test_support::read_file;

const fsys::path kAlltypes = data_file("alltypes/alltypes.gguf");

std::vector<std::string> list_in_order(const fsys::path& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  EXPECT_NE(d, nullptr);
  if (!d) return names;
  while (const dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      names.push_back(e->d_name);
  }
  closedir(d);
  return names;
}

class AlltypesMount : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_MOUNT();
    mount_ = std::make_unique<MountedModel>(kAlltypes);
    ASSERT_EQ(mount_->result().exit_code, 0) << mount_->result().err;
    ASSERT_TRUE(mount_->mounted());
  }
  void TearDown() override {
    if (mount_) {
      const fsys::path where = mount_->path();
      EXPECT_TRUE(mount_->unmount());
      EXPECT_FALSE(mount_test::is_fuse_mount(where));
    }
  }
  const MountedModel& mnt() const { return *mount_; }
  std::unique_ptr<MountedModel> mount_;
};

TEST_F(AlltypesMount, MetadataFilesHoldKnownValues) {
  // Values read off the fixture independently (a small Python reader), rendered by the rules of
  // render.hpp: scalars plus "\n", strings as their exact bytes, arrays one element per line.
  const std::map<std::string, std::string> known = {
      {"general.architecture", "llama"},
      {"general.name", "oracle-all-types"},
      {"general.file_type", "15\n"},
      {"llama.context_length", "4096\n"},
      {"llama.rope.freq_base", "500000\n"},
      {"llama.attention.layer_norm_rms_epsilon", "1e-05\n"},
      {"test.u8", "200\n"},
      {"test.i8", "-5\n"},
      {"test.i16", "-1234\n"},
      {"test.u32", "4294967295\n"},
      {"test.u64", "18446744073709551615\n"},
      {"test.i64", "-9000000000\n"},
      {"test.f32", "0.1\n"},
      {"test.f64_big", "1e+300\n"},
      {"test.bool_true", "true\n"},
      {"test.bool_false", "false\n"},
      {"test.str", "h\xc3\xa9llo"},
      {"test.empty_str", ""},
      {"test.multiline", "line one\nline two\n\ttabbed {{ jinja }}"},
      {"test.arr_i32", "1\n-2\n3\n"},
      {"test.arr_empty", ""},
      {"test.arr_str", "plain\nnew\\nline\ntab\\there\nback\\\\slash\n\n\xe2\x96\x81the\n"},
      {"odd%2Fkey%2Fwith%2Fslashes", "slashy"},
      {std::string(246, 'k') + "~dcfcfcf1", "very long key"},
      {"tokenizer.ggml.token_type", "2\n3\n3\n1\n1\n1\n6\n"},
  };
  for (const auto& [name, value] : known) {
    SCOPED_TRACE(name);
    EXPECT_EQ(read_file(mnt() / ("metadata/" + name)), value);
    struct stat st;
    ASSERT_EQ(stat((mnt() / ("metadata/" + name)).c_str(), &st), 0);
    EXPECT_EQ(static_cast<size_t>(st.st_size), value.size());
  }
}

TEST_F(AlltypesMount, EveryMetadataEntryIsAFileInFileOrder) {
  const auto model = gguf::parse_file(kAlltypes.string());
  const auto listed = list_in_order(mnt() / "metadata");
  ASSERT_EQ(listed.size(), model->metadata.size());
  for (size_t i = 0; i < listed.size(); ++i) {
    const gguf::MetadataEntry& e = model->metadata[i];
    SCOPED_TRACE(std::string(e.key));
    EXPECT_EQ(listed[i], gguffs::names::encode(e.key));
    const std::string content = read_file(mnt() / "metadata" / listed[i]);
    if (e.value.type == gguf::ValueType::STRING) {
      EXPECT_EQ(content, e.value.str);
    } else if (e.value.type == gguf::ValueType::BOOL) {
      EXPECT_EQ(content, e.value.bits ? "true\n" : "false\n");
    } else if (e.value.is_signed_integer()) {
      EXPECT_EQ(content, std::to_string(e.value.i64()) + "\n");
    } else if (e.value.is_integer()) {
      EXPECT_EQ(content, std::to_string(e.value.bits) + "\n");
    } else if (e.value.type == gguf::ValueType::ARRAY) {
      size_t lines = 0;
      for (char c : content) lines += c == '\n';
      EXPECT_EQ(lines, e.value.array.count);
    } else {
      EXPECT_EQ(content, gguf::render_metadata_file(e.value));
    }
  }
}

TEST_F(AlltypesMount, EveryTensorDataEqualsTheFileBytes) {
  const auto model = gguf::parse_file(kAlltypes.string());
  const auto manifest = test_support::alltypes_manifest();
  ASSERT_EQ(model->tensors.size(), manifest.size());
  for (size_t i = 0; i < manifest.size(); ++i) {
    const auto& row = manifest[i];
    const gguf::TensorInfo& t = model->tensors[i];
    SCOPED_TRACE(row.name);
    ASSERT_EQ(t.name, row.name);
    const fsys::path dir = mnt() / "tensors" / gguffs::names::encode(row.name);
    const std::string data = read_file(dir / "data");
    ASSERT_EQ(data.size(), row.bytes);
    EXPECT_TRUE(data == test_support::read_range(kAlltypes, t.file_offset, row.bytes));
    if (row.type_name == "f32") {
      EXPECT_TRUE(data == read_file(data_file("alltypes/" + row.ref_file)));
    }
    EXPECT_FALSE(read_file(dir / "info").empty());
  }
  // The unusual names, spelled out.
  for (const char* name :
       {"odd%2Fslash%2Fname", "%2E%2E", "100%25", "тензор.weight", "with space.weight"})
    EXPECT_TRUE(fsys::is_regular_file(mnt() / "tensors" / name / "data")) << name;
}

TEST_F(AlltypesMount, ModelGgufIsTheWholeFileAndDdReadsIt) {
  EXPECT_TRUE(read_file(mnt() / "model.gguf") == read_file(kAlltypes));
  const auto r = mount_test::run(
      "/usr/bin/dd", {"if=" + (mnt() / "model.gguf").string(), "of=/dev/null", "bs=1M"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("466336 bytes"), std::string::npos) << r.err;
}

TEST_F(AlltypesMount, AttributesOfDirectoriesAndFiles) {
  struct stat st;
  ASSERT_EQ(stat(mnt().path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode, S_IFDIR | 0555u);
  EXPECT_EQ(st.st_ino, 1u);
  EXPECT_EQ(st.st_nlink, 5u);  // . + .. + metadata/ + tensors/ + hf/
  EXPECT_EQ(st.st_uid, getuid());

  ASSERT_EQ(stat((mnt() / "tensors").c_str(), &st), 0);
  EXPECT_EQ(st.st_nlink, 2u + 52u);
  ASSERT_EQ(stat((mnt() / "metadata").c_str(), &st), 0);
  EXPECT_EQ(st.st_nlink, 2u);

  struct stat model_st;
  ASSERT_EQ(stat(kAlltypes.c_str(), &model_st), 0);
  ASSERT_EQ(stat((mnt() / "tensors/blk.0.ffn_down.weight/data").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode, S_IFREG | 0444u);
  EXPECT_EQ(st.st_nlink, 1u);
  EXPECT_EQ(st.st_size, 123904);  // manifest
  EXPECT_EQ(st.st_blocks, 242);   // 123904 / 512
  EXPECT_EQ(st.st_mtim.tv_sec, model_st.st_mtim.tv_sec);
  const ino_t ino = st.st_ino;
  ASSERT_EQ(stat((mnt() / "tensors/blk.0.ffn_down.weight/data").c_str(), &st), 0);
  EXPECT_EQ(st.st_ino, ino);

  ASSERT_EQ(stat((mnt() / "tensors/100%25/data").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 16);
  EXPECT_EQ(st.st_blocks, 1);
  ASSERT_EQ(stat((mnt() / "model.gguf").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, model_st.st_size);

  EXPECT_NE(stat((mnt() / "tensors/no such tensor").c_str(), &st), 0);
  EXPECT_EQ(errno, ENOENT);
}

TEST_F(AlltypesMount, EveryFileSizeMatchesItsContentAndDuAddsUp) {
  uint64_t total = 0, data_total = 0, files = 0, entries = 0;
  for (const auto& e : fsys::recursive_directory_iterator(mnt().path())) {
    ++entries;
    if (!e.is_regular_file()) continue;
    ++files;
    const std::string content = read_file(e.path());
    EXPECT_EQ(content.size(), e.file_size()) << e.path();
    total += content.size();
    if (e.path().filename() == "data" &&
        e.path().parent_path().parent_path().filename() == "tensors")
      data_total += content.size();
  }
  uint64_t manifest_total = 0;
  for (const auto& row : test_support::alltypes_manifest()) manifest_total += row.bytes;
  EXPECT_EQ(data_total, manifest_total);
  // summary.txt, model.gguf, metadata.json, tensors.tsv, tensors.json, metadata/, tensors/,
  // 46 keys, 52 tensors with info, data, data.f32 and data.npy; hf/ with config.json,
  // model.safetensors, unmapped.txt and the 12 tensors with Hugging Face names (info, data,
  // data.npy).
  constexpr uint64_t kHfEntries = 1 + 3 + 12 * 4;
  EXPECT_EQ(entries, 7u + 46u + 52u * 5u + kHfEntries);
  EXPECT_EQ(files, 5u + 46u + 52u * 4u + 3u + 12u * 3u);

  const auto du = mount_test::run("/usr/bin/du", {"-sb", mnt().path().string()});
  ASSERT_EQ(du.exit_code, 0) << du.err;
  EXPECT_EQ(std::stoull(du.out), total);  // directories count as 0 bytes
  const auto find = mount_test::run("/usr/bin/find", {mnt().path().string()});
  ASSERT_EQ(find.exit_code, 0) << find.err;
  size_t lines = 0;
  for (char c : find.out) lines += c == '\n';
  EXPECT_EQ(lines, 1u + 7u + 46u + 52u * 5u + kHfEntries);
}

TEST_F(AlltypesMount, DataFilesCanBeMapped) {
  const fsys::path path = mnt() / "tensors/blk.0.ffn_gate.weight/data";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const size_t size = 101376;  // manifest
  void* p = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(p, MAP_FAILED) << std::strerror(errno);
  const auto model = gguf::parse_file(kAlltypes.string());
  const gguf::TensorInfo* t = nullptr;
  for (const auto& x : model->tensors)
    if (x.name == "blk.0.ffn_gate.weight") t = &x;
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(std::string(static_cast<const char*>(p), size) ==
              test_support::read_range(kAlltypes, t->file_offset, size));
  munmap(p, size);
  close(fd);
}

TEST_F(AlltypesMount, StatfsReportsTheModelSize) {
  struct statvfs s;
  ASSERT_EQ(statvfs(mnt().path().c_str(), &s), 0);
  EXPECT_EQ(s.f_namemax, 255u);
  EXPECT_GE(s.f_blocks * s.f_frsize, 466336u);
  EXPECT_LT(s.f_blocks * s.f_frsize, 466336u + s.f_frsize);
  EXPECT_TRUE(s.f_flag & ST_RDONLY);
}

TEST_F(AlltypesMount, ListingsFollowFileOrder) {
  const auto top = list_in_order(mnt().path());
  EXPECT_EQ(top,
            (std::vector<std::string>{"summary.txt", "model.gguf", "metadata.json", "tensors.tsv",
                                      "tensors.json", "metadata", "tensors", "hf"}));
  const auto tensors = list_in_order(mnt() / "tensors");
  ASSERT_EQ(tensors.size(), 52u);
  EXPECT_EQ(tensors[0], "types.f32.weight");
  EXPECT_EQ(tensors[51], "100%25");
  EXPECT_EQ(list_in_order(mnt() / "tensors/types.f32.weight"),
            (std::vector<std::string>{"info", "data", "data.f32", "data.npy"}));
}

TEST(Gpt2Mount, TokenListHasOneLinePerToken) {
  REQUIRE_MOUNT();
  MountedModel m(data_file("gpt2-vocab.gguf"));
  ASSERT_EQ(m.result().exit_code, 0) << m.result().err;
  ASSERT_TRUE(m.mounted());
  std::istringstream in(read_file(m / "metadata/tokenizer.ggml.tokens"));
  std::string line, first;
  size_t lines = 0;
  while (std::getline(in, line)) {
    if (lines++ == 0) first = line;
  }
  EXPECT_EQ(lines, 50257u);
  EXPECT_EQ(first, "!");
  EXPECT_EQ(read_file(m / "metadata/tokenizer.ggml.bos_token_id"), "50256\n");
  EXPECT_EQ(list_in_order(m / "tensors").size(), 0u);
  EXPECT_TRUE(m.unmount());
}

}  // namespace
