// llama.cpp loads MNT/model.gguf of a --edit mount after its metadata was edited: it reports the
// new chat template and context length, and computes the same greedy tokens when only the
// template changed (the tensor bytes are the original file's).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "tests/interop/interop_support.hpp"
#include "tests/mount/mount_fixture.hpp"

namespace {

using mount_test::MountedModel;

const std::vector<std::string> kRun = {"--prompt", "The quick brown fox jumps over", "--tokens",
                                       "12"};

bool write_value(const std::filesystem::path& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  return close(fd) == 0 && ok;
}

TEST(LlamaCppEdit, LoadsTheEditedModelWithItsNewTemplateAndContextLength) {
  REQUIRE_MOUNT();
  REQUIRE_TOOL(interop::node_clients_unavailable());
  const auto model = interop::tiny_llama_model();
  const nlohmann::json before = interop::run_llama(model, kRun);
  ASSERT_TRUE(before.value("loaded", false)) << before.dump();

  MountedModel mnt(model, {"--edit"});
  ASSERT_TRUE(mnt.mounted()) << mnt.result().err;
  const std::string tpl =
      "{% for message in messages %}<|{{ message['role'] }}|>{{ message['content'] }}"
      "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}";
  ASSERT_TRUE(write_value(mnt / "metadata/tokenizer.chat_template", tpl));
  const nlohmann::json templated = interop::run_llama(mnt / "model.gguf", kRun);
  ASSERT_TRUE(templated.value("loaded", false)) << templated.dump();
  EXPECT_EQ(templated.value("chatTemplate", ""), tpl);
  EXPECT_EQ(templated["trainContextSize"], before["trainContextSize"]);
  EXPECT_EQ(templated["tokens"], before["tokens"]) << "only the template changed";

  const int context = before.value("trainContextSize", 0) / 2;
  ASSERT_GT(context, 0);
  const std::string arch = "llama";
  ASSERT_TRUE(
      write_value(mnt / ("metadata/" + arch + ".context_length"), std::to_string(context) + "\n"));
  const nlohmann::json shorter = interop::run_llama(mnt / "model.gguf", kRun);
  ASSERT_TRUE(shorter.value("loaded", false)) << shorter.dump();
  EXPECT_EQ(shorter.value("trainContextSize", 0), context);
  EXPECT_EQ(shorter.value("chatTemplate", ""), tpl);
  EXPECT_TRUE(mnt.unmount());
}

}  // namespace
