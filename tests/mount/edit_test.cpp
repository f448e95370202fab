// Editing metadata through a --edit mount: write/close, refusals at close, rm, mv, create,
// sed -i, split.* keys, general.alignment, snapshots held by open and mapped readers, and
// edits racing readers.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if __has_include(<nlohmann/json.hpp>)
#include <nlohmann/json.hpp>
#define EDIT_TEST_HAVE_JSON 1
#endif

#include "gguf/parser.hpp"
#include "gguf/writer.hpp"
#include "tests/mount/mount_fixture.hpp"
#include "tests/support/test_support.hpp"

namespace {

using mount_test::MountedModel;
using test_support::read_file;

const std::string kModel = "alltypes/alltypes.gguf";

// open(O_WRONLY | O_TRUNC), write, close; returns close's errno (0 when it succeeded).
int write_and_close(const std::filesystem::path& path, const std::string& text,
                    int flags = O_WRONLY | O_TRUNC) {
  const int fd = open(path.c_str(), flags, 0644);
  if (fd < 0) return errno;
  if (!text.empty() && write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    const int err = errno;
    close(fd);
    return err;
  }
  return close(fd) == 0 ? 0 : errno;
}

std::string xattr(const std::filesystem::path& path, const char* name) {
  char buf[4096];
  const ssize_t n = getxattr(path.c_str(), name, buf, sizeof buf);
  return n < 0 ? std::string("<errno ") + std::to_string(errno) + ">" : std::string(buf, n);
}

gguf::ModelPtr parse_bytes(const std::string& bytes) {
  return gguf::parse(gguf::memory_source(bytes, "model.gguf"));
}

// The string value of key in a parsed model, or "<none>".
std::string string_value(const gguf::Model& m, std::string_view key) {
  const gguf::MetadataEntry* e = m.find(key);
  if (!e) return "<none>";
  return std::string(e->value.str);
}

// Every tensor's bytes in the edited file equal the original's (tensor data is never changed).
void expect_same_tensor_bytes(const gguf::Model& original, const std::string& original_bytes,
                              const gguf::Model& edited, const std::string& edited_bytes) {
  ASSERT_EQ(original.tensors.size(), edited.tensors.size());
  for (size_t k = 0; k < original.tensors.size(); ++k) {
    const auto& a = original.tensors[k];
    const auto& b = edited.tensors[k];
    ASSERT_EQ(a.name, b.name);
    ASSERT_EQ(a.bytes, b.bytes);
    ASSERT_EQ(b.file_offset % edited.alignment, 0u);
    EXPECT_EQ(original_bytes.compare(a.file_offset, a.bytes, edited_bytes, b.file_offset, b.bytes),
              0)
        << a.name;
  }
}

TEST(EditMount, WriteAppliesAtCloseAndEveryFileShowsIt) {
  REQUIRE_MOUNT();
  MountedModel m(test_support::data_file(kModel), {"--edit"});
  ASSERT_TRUE(m.mounted()) << m.result().err;
  EXPECT_NE(m.result().err.find("edits last until unmount"), std::string::npos);
  const std::string original = read_file(test_support::data_file(kModel));
  EXPECT_EQ(read_file(m / "model.gguf"), original) << "unedited: the model file itself";

  const std::string tpl = "{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}{% endfor %}";
  ASSERT_EQ(write_and_close(m / "metadata/tokenizer.chat_template", tpl), 0);
  ASSERT_EQ(write_and_close(m / "metadata/llama.context_length", "8192\n"), 0);
  EXPECT_EQ(read_file(m / "metadata/tokenizer.chat_template"), tpl);
  EXPECT_EQ(read_file(m / "metadata/llama.context_length"), "8192\n");

  const std::string edited_bytes = read_file(m / "model.gguf");
  EXPECT_EQ(static_cast<uint64_t>(std::filesystem::file_size(m / "model.gguf")),
            edited_bytes.size());
  const auto edited = parse_bytes(edited_bytes);
  EXPECT_TRUE(edited->warnings.empty()) << edited->warnings.front();
  EXPECT_EQ(string_value(*edited, "tokenizer.chat_template"), tpl);
  ASSERT_NE(edited->find("llama.context_length"), nullptr);
  EXPECT_EQ(edited->find("llama.context_length")->value.type, gguf::ValueType::UINT32);
  EXPECT_EQ(edited->find("llama.context_length")->value.bits, 8192u);
  const auto base = parse_bytes(original);
  EXPECT_EQ(edited->metadata.size(), base->metadata.size());
  expect_same_tensor_bytes(*base, original, *edited, edited_bytes);
  EXPECT_NE(read_file(m / "summary.txt").find("context_length = 8192"), std::string::npos);
  EXPECT_NE(read_file(m / "metadata.json").find("\"value\": 8192"), std::string::npos);
  EXPECT_TRUE(m.unmount());
}

TEST(EditMount, AValueThatDoesNotParseFailsCloseAndKeepsTheOldValue) {
  REQUIRE_MOUNT();
  MountedModel m(test_support::data_file(kModel), {"-o", "edit"});
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const auto key = m / "metadata/llama.context_length";
  const std::string before = read_file(key);
  const std::string model_before = read_file(m / "model.gguf");
  EXPECT_EQ(write_and_close(key, "4294967296\n"), EINVAL);
  EXPECT_EQ(read_file(key), before);
  EXPECT_EQ(read_file(m / "model.gguf"), model_before);
  EXPECT_EQ(xattr(key, "user.gguf.error"),
            "llama.context_length (UINT32): '4294967296' is out of range for UINT32");
  EXPECT_EQ(write_and_close(m / "metadata/test.arr_i32", "1\nx\n"), EINVAL);
  EXPECT_NE(xattr(m / "metadata/test.arr_i32", "user.gguf.error").find("line 2"),
            std::string::npos);
  // A good value clears the reason.
  EXPECT_EQ(write_and_close(key, "2048"), 0);
  EXPECT_EQ(read_file(key), "2048\n");
  EXPECT_EQ(xattr(key, "user.gguf.error"), "<errno 61>");  // ENODATA
  EXPECT_TRUE(m.unmount());
}

TEST(EditMount, EveryKeyWrittenBackAsItReadsGivesTheSameMetadata) {
  REQUIRE_MOUNT();
  MountedModel m(test_support::data_file(kModel), {"--edit"});
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const std::string json_before = read_file(m / "metadata.json");
  const auto base = parse_bytes(read_file(test_support::data_file(kModel)));
  size_t written = 0;
  for (const auto& entry : std::filesystem::directory_iterator(m / "metadata")) {
    const std::string text = read_file(entry.path());
    EXPECT_EQ(write_and_close(entry.path(), text), 0) << entry.path();
    ++written;
  }
  EXPECT_EQ(written, base->metadata.size());
  EXPECT_EQ(read_file(m / "metadata.json"), json_before);
  const auto edited = parse_bytes(read_file(m / "model.gguf"));
  ASSERT_EQ(edited->metadata.size(), base->metadata.size());
  for (size_t k = 0; k < base->metadata.size(); ++k) {
    EXPECT_EQ(edited->metadata[k].key, base->metadata[k].key);
    EXPECT_EQ(edited->metadata[k].value.type, base->metadata[k].value.type);
  }
  EXPECT_TRUE(m.unmount());
}

TEST(EditMount, RemoveRenameCreateAndSedInPlace) {
  REQUIRE_MOUNT();
  MountedModel m(test_support::data_file(kModel), {"--edit"});
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const auto md = m / "metadata";

  ASSERT_EQ(unlink((md / "general.name").c_str()), 0);
  EXPECT_FALSE(std::filesystem::exists(md / "general.name"));
  EXPECT_EQ(parse_bytes(read_file(m / "model.gguf"))->find("general.name"), nullptr);

  const std::string arch = read_file(md / "general.architecture");
  ASSERT_EQ(rename((md / "general.architecture").c_str(), (md / "general.arch2").c_str()), 0);
  EXPECT_EQ(read_file(md / "general.arch2"), arch);
  EXPECT_FALSE(std::filesystem::exists(md / "general.architecture"));

  // A new file is a STRING key; with user.gguf.type set first, a key of that type.
  ASSERT_EQ(write_and_close(md / "my.note", "hello\n", O_WRONLY | O_CREAT | O_EXCL), 0);
  EXPECT_EQ(read_file(md / "my.note"), "hello\n");
  EXPECT_EQ(xattr(md / "my.note", "user.gguf.type"), "STRING");
  const int fd = open((md / "my.ids").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fsetxattr(fd, "user.gguf.type", "ARRAY[INT32]", 12, 0), 0);
  ASSERT_EQ(write(fd, "1\n-2\n3\n", 7), 7);
  ASSERT_EQ(close(fd), 0);
  EXPECT_EQ(xattr(md / "my.ids", "user.gguf.type"), "ARRAY[INT32]");
  EXPECT_EQ(xattr(md / "my.ids", "user.gguf.count"), "3");
  // An existing key keeps its type.
  EXPECT_EQ(setxattr((md / "my.ids").c_str(), "user.gguf.type", "STRING", 6, 0), -1);
  EXPECT_EQ(errno, EPERM);

  // sed -i: a temporary file in metadata/, renamed over the key, read as the key's type.
  ASSERT_EQ(system(("sed -i 's/^/1/' " + (md / "llama.context_length").string()).c_str()), 0);
  const auto edited = parse_bytes(read_file(m / "model.gguf"));
  EXPECT_TRUE(edited->warnings.empty());
  ASSERT_NE(edited->find("llama.context_length"), nullptr);
  EXPECT_EQ(edited->find("llama.context_length")->value.type, gguf::ValueType::UINT32);
  EXPECT_EQ(edited->find("llama.context_length")->value.bits, 14096u);
  EXPECT_EQ(string_value(*edited, "my.note"), "hello\n");
  EXPECT_EQ(edited->find("my.ids")->value.array.count, 3u);
  ASSERT_NE(edited->find("general.arch2"), nullptr);
  // No temporary key is left behind.
  for (const auto& e : std::filesystem::directory_iterator(md))
    EXPECT_FALSE(e.path().filename().string().starts_with("sed")) << e.path();

  // Outside metadata/ nothing is writable.
  EXPECT_EQ(write_and_close(m / "summary.txt", "x"), EROFS);
  EXPECT_EQ(write_and_close(m / "model.gguf", "x"), EROFS);
  EXPECT_EQ(open((m / "new").c_str(), O_WRONLY | O_CREAT, 0644), -1);
  EXPECT_TRUE(m.unmount());
}

TEST(EditMount, SplitKeysCannotChange) {
  REQUIRE_MOUNT();
  MountedModel m(test_support::data_file("split/split-00001-of-00003.gguf"), {"--edit"});
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const auto md = m / "metadata";
  EXPECT_EQ(write_and_close(md / "split.count", "4"), EPERM);
  EXPECT_EQ(unlink((md / "split.no").c_str()), -1);
  EXPECT_EQ(errno, EPERM);
  // The merged model.gguf takes edits like any other.
  ASSERT_EQ(write_and_close(md / "general.name", "merged and renamed"), 0);
  const auto edited = parse_bytes(read_file(m / "model.gguf"));
  EXPECT_TRUE(edited->warnings.empty());
  EXPECT_EQ(string_value(*edited, "general.name"), "merged and renamed");
  EXPECT_EQ(edited->find("split.count"), nullptr);
  EXPECT_TRUE(m.unmount());
}

TEST(EditMount, AlignmentChangeLaysTheTensorsOutAgain) {
  REQUIRE_MOUNT();
  MountedModel m(test_support::data_file(kModel), {"--edit"});
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const auto md = m / "metadata";
  const std::string original = read_file(test_support::data_file(kModel));
  if (!std::filesystem::exists(md / "general.alignment")) {
    const int fd = open((md / "general.alignment").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(fsetxattr(fd, "user.gguf.type", "UINT32", 6, 0), 0);
    ASSERT_EQ(close(fd), 0);
  }
  EXPECT_EQ(write_and_close(md / "general.alignment", "48"), EINVAL);  // not a power of two
  ASSERT_EQ(write_and_close(md / "general.alignment", "256"), 0);
  const std::string bytes = read_file(m / "model.gguf");
  const auto edited = parse_bytes(bytes);
  EXPECT_TRUE(edited->warnings.empty());
  EXPECT_EQ(edited->alignment, 256u);
  EXPECT_EQ(edited->data_offset % 256, 0u);
  expect_same_tensor_bytes(*parse_bytes(original), original, *edited, bytes);
  EXPECT_TRUE(m.unmount());
}

TEST(EditMount, AReaderThatOpenedOrMappedModelGgufBeforeAnEditSeesOnlyTheOldBytes) {
  REQUIRE_MOUNT();
  MountedModel m(test_support::data_file(kModel), {"--edit"});
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const std::string original = read_file(test_support::data_file(kModel));
  const int fd = open((m / "model.gguf").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  void* map = mmap(nullptr, original.size(), PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(map, MAP_FAILED);
  const auto* mapped = static_cast<const char*>(map);
  // Touch the first page only: the rest is faulted in after the edit.
  EXPECT_EQ(std::memcmp(mapped, original.data(), 64), 0);

  ASSERT_EQ(write_and_close(m / "metadata/general.name", std::string(5000, 'n')), 0);
  const std::string edited = read_file(m / "model.gguf");
  ASSERT_NE(edited.size(), original.size());

  std::string through_fd(original.size() + 100, '\0');
  ssize_t got = 0;
  while (true) {
    const ssize_t n = pread(fd, through_fd.data() + got, through_fd.size() - got, got);
    ASSERT_GE(n, 0);
    if (n == 0) break;
    got += n;
  }
  through_fd.resize(static_cast<size_t>(got));
  EXPECT_TRUE(through_fd == original) << "the open handle reads its own version";
  EXPECT_EQ(std::memcmp(mapped, original.data(), original.size()), 0) << "and so does the map";
  struct stat st;
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ(static_cast<size_t>(st.st_size), original.size());
  munmap(map, original.size());
  close(fd);
  EXPECT_EQ(read_file(m / "model.gguf"), edited);
  EXPECT_TRUE(m.unmount());
}

TEST(EditMount, EditsRacingReadersGiveOneConsistentVersionPerRead) {
  REQUIRE_MOUNT();
  MountedModel m(test_support::data_file(kModel), {"--edit"});
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const auto md = m / "metadata";
  constexpr int kThreads = 8;
  constexpr int kEdits = 12;
  for (int t = 0; t < kThreads; ++t)
    ASSERT_EQ(write_and_close(md / ("race." + std::to_string(t)), "start", O_WRONLY | O_CREAT), 0);
  const std::string original = read_file(test_support::data_file(kModel));
  const auto base = parse_bytes(original);
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0}, reads{0};
  std::mutex first_failure_mutex;
  std::string first_failure;
  auto failed = [&](const std::string& why) {
    ++failures;
    std::lock_guard lock(first_failure_mutex);
    if (first_failure.empty()) first_failure = why;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const auto key = md / ("race." + std::to_string(t));
      for (int k = 0; k < kEdits; ++k) {
        // Values of growing length move every later byte of the header.
        if (const int err =
                write_and_close(key, std::to_string(t) + ":" + std::string(k * 37, 'x')))
          failed("write: " + std::string(std::strerror(err)));
      }
    });
  }
  for (int r = 0; r < kThreads; ++r) {
    threads.emplace_back([&, r] {
      while (!stop) {
        const bool json = r % 2 == 1;
        try {
          const std::string bytes = read_file(m / (json ? "metadata.json" : "model.gguf"));
          ++reads;
          if (json) {
#ifdef EDIT_TEST_HAVE_JSON
            const auto j = nlohmann::json::parse(bytes);
            if (!j.contains("general.architecture")) failed("metadata.json lacks a key");
#endif
          } else {
            const auto model = parse_bytes(bytes);
            if (!model->warnings.empty() || model->tensors.size() != base->tensors.size()) {
              failed("model.gguf: " +
                     (model->warnings.empty() ? std::string("tensors differ")
                                              : model->warnings.front()) +
                     " size " + std::to_string(bytes.size()));
              continue;
            }
            const auto& t = model->tensors.back();
            const auto& b = base->tensors.back();
            if (bytes.compare(t.file_offset, t.bytes, original, b.file_offset, b.bytes) != 0)
              failed("model.gguf: tensor bytes differ");
          }
        } catch (const std::exception& e) {
          failed(std::string(json ? "metadata.json: " : "model.gguf: ") + e.what());
        }
      }
    });
  }
  for (int t = 0; t < kThreads; ++t) threads[t].join();
  stop = true;
  for (size_t t = kThreads; t < threads.size(); ++t) threads[t].join();
  EXPECT_EQ(failures.load(), 0) << "first: " << first_failure;
  EXPECT_GT(reads.load(), 0);
  const auto final_model = parse_bytes(read_file(m / "model.gguf"));
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(string_value(*final_model, "race." + std::to_string(t)),
              std::to_string(t) + ":" + std::string((kEdits - 1) * 37, 'x'));
  }
  EXPECT_TRUE(m.unmount());
}

TEST(EditMount, WithoutEditNothingIsWritable) {
  REQUIRE_MOUNT();
  MountedModel m(test_support::data_file(kModel));
  ASSERT_TRUE(m.mounted()) << m.result().err;
  EXPECT_EQ(write_and_close(m / "metadata/general.name", "x"), EROFS);
  struct stat st;
  ASSERT_EQ(stat((m / "metadata/general.name").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0444u);
  EXPECT_TRUE(m.unmount());
}

}  // namespace

namespace {

using mount_test::run_gguffs;

TEST(EditOverlay, SurvivesARemountAndExportIsByteIdentical) {
  REQUIRE_MOUNT();
  test_support::TempDir dir;
  const std::string overlay = (dir.path() / "edits.gguf").string();
  const std::string base = test_support::data_file(kModel).string();
  std::string edited;
  {
    MountedModel m(base, {"-o", "overlay=" + overlay});
    ASSERT_TRUE(m.mounted()) << m.result().err;
    EXPECT_NE(m.result().err.find("edits are kept in"), std::string::npos);
    ASSERT_EQ(run_gguffs({"set", m.path().string(), "general.name", "kept"}).exit_code, 0);
    ASSERT_EQ(run_gguffs({"set", m.path().string(), "my.layers", "--type", "UINT16", "--", "12"})
                  .exit_code,
              0);
    const auto bad = run_gguffs({"set", m.path().string(), "my.layers", "70000"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("'70000' is out of range for UINT16"), std::string::npos) << bad.err;
    ASSERT_EQ(run_gguffs({"unset", m.path().string(), "general.file_type"}).exit_code, 0);
    edited = read_file(m / "model.gguf");
    EXPECT_TRUE(m.unmount());
  }
  const auto model = parse_bytes(edited);
  EXPECT_EQ(string_value(*model, "general.name"), "kept");
  ASSERT_NE(model->find("my.layers"), nullptr);
  EXPECT_EQ(model->find("my.layers")->value.type, gguf::ValueType::UINT16);
  EXPECT_EQ(model->find("my.layers")->value.bits, 12u);
  EXPECT_EQ(model->find("general.file_type"), nullptr);
  {
    MountedModel m(base, {"-o", "overlay=" + overlay});
    ASSERT_TRUE(m.mounted()) << m.result().err;
    EXPECT_EQ(read_file(m / "model.gguf"), edited);
    EXPECT_EQ(read_file(m / "metadata/general.name"), "kept");
    EXPECT_TRUE(m.unmount());
  }
  const std::string out = (dir.path() / "patched.gguf").string();
  const auto exported = run_gguffs({"export", base, "--overlay", overlay, out});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_TRUE(read_file(out) == edited) << "export equals MNT/model.gguf byte for byte";
}

TEST(EditOverlay, AnOverlayMadeForAnotherModelIsRefused) {
  REQUIRE_MOUNT();
  test_support::TempDir dir;
  const std::string overlay = (dir.path() / "edits.gguf").string();
  {
    MountedModel m(test_support::data_file(kModel), {"-o", "overlay=" + overlay});
    ASSERT_TRUE(m.mounted()) << m.result().err;
    ASSERT_EQ(run_gguffs({"set", m.path().string(), "general.name", "x"}).exit_code, 0);
    EXPECT_TRUE(m.unmount());
  }
  const std::string other = test_support::data_file("gpt2-vocab.gguf").string();
  MountedModel m(other, {"-o", "overlay=" + overlay});
  EXPECT_FALSE(m.mounted());
  EXPECT_EQ(m.result().exit_code, 14);
  EXPECT_NE(m.result().err.find("made for another model"), std::string::npos) << m.result().err;
  const auto exported =
      run_gguffs({"export", other, "--overlay", overlay, (dir.path() / "o.gguf").string()});
  EXPECT_EQ(exported.exit_code, 14);
  // Not an overlay at all.
  const auto not_overlay =
      run_gguffs({"export", other, "--overlay", other, (dir.path() / "o.gguf").string()});
  EXPECT_EQ(not_overlay.exit_code, 14);
  EXPECT_NE(not_overlay.err.find("not a gguffs overlay"), std::string::npos) << not_overlay.err;
}

}  // namespace
