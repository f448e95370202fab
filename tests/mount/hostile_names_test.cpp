// Names from a hostile model file, mounted: keys and tensor names with '/', "..", control bytes,
// 300 bytes, and duplicates (also of the "~2" names the tree gives duplicates). Every entry
// must appear exactly once as a file of its own inside its directory, and nothing may leave the
// mount or hide another entry. Also: who may enter a mount.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "gguf/writer.hpp"
#include "tests/mount/mount_fixture.hpp"

namespace {

namespace fsys = std::filesystem;
using gguf::OwnedValue;

const std::vector<std::string>& hostile_names() {
  static const std::vector<std::string> names = {"a/b",
                                                 "../escape",
                                                 "..",
                                                 ".",
                                                 "",
                                                 "/",
                                                 "%2F",
                                                 "ctl\x01\n\x7f",
                                                 "dup",
                                                 "dup",
                                                 "dup~2",
                                                 "dup~2",
                                                 "%",
                                                 "%%",
                                                 "a/../../../etc/passwd",
                                                 std::string(300, 'k'),
                                                 std::string(299, 'k') + "j",
                                                 std::string(300, '/'),
                                                 std::string(250, 'k') + "~2"};
  return names;
}

// Every key holds its index as its value, so each file tells which entry it is.
gguf::Writer hostile_model() {
  gguf::Writer w;
  const auto& names = hostile_names();
  for (size_t i = 0; i < names.size(); ++i) {
    w.add(names[i], OwnedValue::string("entry " + std::to_string(i)));
    w.add_tensor(names[i], {1}, 0, std::string(4, static_cast<char>(i)));  // F32
  }
  return w;
}

TEST(HostileNames, EveryEntryIsOneFileInsideItsDirectory) {
  REQUIRE_MOUNT();
  test_support::TempDir dir;
  hostile_model().write_file((dir / "hostile.gguf").string());
  const auto check = mount_test::run_gguffs({"check", (dir / "hostile.gguf").string()});
  EXPECT_EQ(check.exit_code, 0) << check.err;

  mount_test::MountedModel m(dir / "hostile.gguf");
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const size_t n = hostile_names().size();

  std::set<std::string> values;
  size_t files = 0;
  for (const auto& e : fsys::directory_iterator(m / "metadata")) {
    const std::string name = e.path().filename().string();
    EXPECT_LE(name.size(), 255u);
    EXPECT_TRUE(name != "." && name != ".." && name.find('/') == std::string::npos) << name;
    EXPECT_TRUE(e.is_regular_file()) << name;
    values.insert(test_support::read_file(e.path()));
    ++files;
  }
  EXPECT_EQ(files, n);
  EXPECT_EQ(values.size(), n) << "an entry is hidden or shown twice";
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(values.count("entry " + std::to_string(i)), 1u) << i;

  std::set<std::string> data;
  size_t tensor_dirs = 0;
  for (const auto& e : fsys::directory_iterator(m / "tensors")) {
    EXPECT_TRUE(e.is_directory()) << e.path();
    data.insert(test_support::read_file(e.path() / "data"));
    ++tensor_dirs;
  }
  EXPECT_EQ(tensor_dirs, n);
  EXPECT_EQ(data.size(), n) << "a tensor is hidden or shown twice";

  // Nothing anywhere in the tree resolves outside the mount.
  const fsys::path root = fsys::canonical(m.path());
  size_t walked = 0;
  for (const auto& e : fsys::recursive_directory_iterator(m.path())) {
    const std::string p = fsys::canonical(e.path()).string();
    EXPECT_EQ(p.rfind(root.string() + "/", 0), 0u) << p;
    ++walked;
  }
  EXPECT_GT(walked, 4 * n);
  EXPECT_TRUE(m.unmount());
}

// The options as the kernel sees them, from /proc/mounts.
std::string mount_options_of(const fsys::path& mount_point) {
  std::ifstream mounts("/proc/mounts");
  std::string device, where, type, options, rest;
  while (mounts >> device >> where >> type >> options && std::getline(mounts, rest))
    if (where == mount_point.string()) return options;
  return {};
}

TEST(HostileNames, OnlyTheOwnerGetsInUnlessAllowOtherWhichChecksPermissions) {
  REQUIRE_MOUNT();
  const fsys::path model = test_support::data_file("alltypes/alltypes.gguf");
  {
    mount_test::MountedModel m(model);
    ASSERT_TRUE(m.mounted()) << m.result().err;
    const std::string options = mount_options_of(m.path());
    EXPECT_EQ(options.find("allow_other"), std::string::npos) << options;
  }
  mount_test::MountedModel m(model, {"-o", "allow_other"});
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const std::string options = mount_options_of(m.path());
  EXPECT_NE(options.find("allow_other"), std::string::npos) << options;
  EXPECT_NE(options.find("default_permissions"), std::string::npos) << options;
}

}  // namespace
