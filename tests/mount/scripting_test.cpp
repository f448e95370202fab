// The README's "Scripting" one-liners, run as written on mounts of the fixtures, with their
// output checked against the alltypes manifest; and `cmake --install` with a clean man page.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/mount/mount_fixture.hpp"

namespace {

namespace fsys = std::filesystem;
using mount_test::run;
using test_support::data_file;

// The command lines of the fenced block under "## Scripting" (comments dropped).
std::vector<std::string> readme_one_liners() {
  // tests/mount/scripting_test.cpp -> README.md at the top of the sources.
  const fsys::path readme =
      fsys::path(__FILE__).parent_path().parent_path().parent_path() / "README.md";
  std::istringstream in(test_support::read_file(readme));
  std::vector<std::string> lines;
  std::string line;
  bool in_section = false, in_block = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Scripting";
    if (!in_section) continue;
    if (line.rfind("```", 0) == 0) {
      if (in_block) break;
      in_block = true;
      continue;
    }
    if (in_block && !line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

TEST(Scripting, ReadmeOneLinersRunOnTheFixture) {
  REQUIRE_MOUNT();
  const auto lines = readme_one_liners();
  ASSERT_EQ(lines.size(), 8u);
  const std::string model = data_file("alltypes/alltypes.gguf").string();
  mount_test::MountedModel a(model), b(model);
  ASSERT_TRUE(a.mounted() && b.mounted()) << a.result().err << b.result().err;
  test_support::TempDir work;
  const auto manifest = test_support::alltypes_manifest();

  std::map<std::string, std::string> out;  // by a word of the command
  for (const std::string& line : lines) {
    std::string cmd = replace_all(line, "MNT2", b.path().string());
    cmd = replace_all(cmd, "MNT", a.path().string());
    cmd = replace_all(cmd, "MODEL", model);
    const auto r = run(
        "/bin/bash", {"-c", "cd " + work.path().string() +
                                " && PATH=" + test_support::gguffs_binary().parent_path().string() +
                                ":$PATH && " + cmd});
    EXPECT_EQ(r.exit_code, 0) << line << "\n" << r.err;
    EXPECT_EQ(r.err, "") << line;
    out[line] = r.out;
  }
  auto output_of = [&](const std::string& fragment) {
    for (const auto& [line, text] : out)
      if (line.find(fragment) != std::string::npos) return text;
    ADD_FAILURE() << "no one-liner with " << fragment;
    return std::string();
  };

  // Largest tensors: the manifest's five largest, by bytes.
  auto by_size = manifest;
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const auto& x, const auto& y) { return x.bytes > y.bytes; });
  const std::string largest_text = output_of("-k6 -n -r");
  std::istringstream largest(largest_text);
  std::string first;
  std::getline(largest, first);
  EXPECT_EQ(first.substr(first.rfind('\t') + 1), std::to_string(by_size[0].bytes)) << first;
  EXPECT_EQ(std::count(largest_text.begin(), largest_text.end(), '\n'), 5);

  // Quant mix: every type's count and bytes as the manifest sums them.
  std::map<std::string, std::pair<int, uint64_t>> mix;
  for (const auto& row : manifest) {
    mix[upper(row.type_name)].first++;
    mix[upper(row.type_name)].second += row.bytes;
  }
  const std::string quant = output_of("n[$2]++");
  for (const auto& [type, count_bytes] : mix) {
    const std::string expected = type + " " + std::to_string(count_bytes.first) + " " +
                                 std::to_string(count_bytes.second) + "\n";
    EXPECT_NE(quant.find(expected), std::string::npos) << expected << quant;
  }

  EXPECT_EQ(output_of("general.architecture"), "llama\n");
  EXPECT_NE(output_of("select(.value.type"), "");
  const std::string types = output_of("getfattr");
  EXPECT_NE(types.find("general.architecture\tSTRING\n"), std::string::npos) << types;
  EXPECT_EQ(output_of("sha256sum"), "");  // the same model twice
  EXPECT_EQ(fsys::file_size(work / "token_embd.f32"), 8192u * 4);
  EXPECT_EQ(output_of("cut -f1,2 | head -3"),
            "name\ttype\ntypes.f32.weight\tF32\ntypes.f16.weight\tF16\n");

  // And the hash comparison notices a different model.
  const auto r = run(
      "/bin/bash", {"-c", "diff <(cd " + a.path().string() + "/tensors && sha256sum */data) <(cd " +
                              a.path().string() + "/tensors && sha256sum */data | sed 1d)"});
  EXPECT_EQ(r.exit_code, 1);
}

TEST(Install, BinaryManPageAndCompletion) {
  const fsys::path build = test_support::gguffs_binary().parent_path();
  test_support::TempDir prefix;
  const auto r = run("/usr/bin/env",
                     {"cmake", "--install", build.string(), "--prefix", prefix.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(fsys::exists(prefix / "bin/gguffs"));
  EXPECT_TRUE(fsys::exists(prefix / "share/bash-completion/completions/gguffs"));
  const fsys::path man = prefix / "share/man/man1/gguffs.1";
  ASSERT_TRUE(fsys::exists(man));
  const auto v = run((prefix / "bin/gguffs").string(), {"--version"});
  EXPECT_EQ(v.exit_code, 0);
  // The man page renders without a single warning from groff.
  const auto m = run("/usr/bin/env", {"MANWIDTH=80", "man", "--warnings", "-l", man.string()});
  EXPECT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(m.err, "");
  for (const char* section : {"SYNOPSIS", "OPTIONS", "LAYOUT", "EXIT STATUS", "EXAMPLES"})
    EXPECT_NE(m.out.find(section), std::string::npos) << section;
  // The completion file is valid bash and defines the function.
  const auto c =
      run("/bin/bash",
          {"-c", "source " + (prefix / "share/bash-completion/completions/gguffs").string() +
                     " && complete -p gguffs"});
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out, "complete -F _gguffs gguffs\n");
}

}  // namespace
