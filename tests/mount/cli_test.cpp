// The command line: what is refused (with which exit code) before anything is mounted, the
// subcommands, and clean shutdown on signals.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>

#include "tests/mount/mount_fixture.hpp"

namespace {

namespace fsys = std::filesystem;
using mount_test::is_fuse_mount;
using mount_test::run_gguffs;
using test_support::data_file;
using test_support::TempDir;

const std::string kAlltypes = data_file("alltypes/alltypes.gguf").string();

// One line on stderr, starting with "gguffs: ".
void expect_one_line_message(const std::string& err) {
  EXPECT_EQ(err.rfind("gguffs: ", 0), 0u) << err;
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
}

TEST(Cli, HelpAndVersion) {
  auto r = run_gguffs({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("usage: gguffs"), std::string::npos);
  r = run_gguffs({"-V"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("gguffs 0.1.0", 0), 0u) << r.out;
}

TEST(Cli, UsageErrorsExitWith2) {
  TempDir dir;
  for (const auto& args :
       std::vector<std::vector<std::string>>{{},
                                             {"--bogus", kAlltypes, dir.path().string()},
                                             {"-o", "rw", kAlltypes, dir.path().string()},
                                             {"-o"},
                                             {"summary"},
                                             {"check", kAlltypes, "extra"}}) {
    const auto r = run_gguffs(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    expect_one_line_message(r.err);
  }
  EXPECT_FALSE(is_fuse_mount(dir.path()));
}

TEST(Cli, RefusedModelsExitWithTheirCodeAndMountNothing) {
  REQUIRE_MOUNT();
  TempDir dir;
  const auto mnt = dir / "mnt";
  fsys::create_directory(mnt);
  test_support::write_file(dir / "text.txt", "just some text, not a model\n");
  test_support::write_file(dir / "empty.gguf", "");

  auto r = run_gguffs({(dir / "text.txt").string(), mnt.string()});
  EXPECT_EQ(r.exit_code, 4) << r.err;  // not GGUF
  expect_one_line_message(r.err);
  EXPECT_NE(r.err.find("text.txt"), std::string::npos);
  EXPECT_FALSE(is_fuse_mount(mnt));

  r = run_gguffs({(dir / "empty.gguf").string(), mnt.string()});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_FALSE(is_fuse_mount(mnt));

  r = run_gguffs({(dir / "missing.gguf").string(), mnt.string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;  // cannot open
  expect_one_line_message(r.err);
  EXPECT_FALSE(is_fuse_mount(mnt));

  // Version 1 (and a valid magic): unsupported.
  test_support::write_file(dir / "v1.gguf",
                           std::string("GGUF\x01\0\0\0", 8) + std::string(16, '\0'));
  r = run_gguffs({(dir / "v1.gguf").string(), mnt.string()});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_FALSE(is_fuse_mount(mnt));
}

TEST(Cli, BadMountPointsExitWith8) {
  REQUIRE_MOUNT();
  TempDir dir;
  auto r = run_gguffs({kAlltypes, (dir / "missing").string()});
  EXPECT_EQ(r.exit_code, 8) << r.err;
  expect_one_line_message(r.err);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;

  test_support::write_file(dir / "file", "x");
  r = run_gguffs({kAlltypes, (dir / "file").string()});
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;

  fsys::create_directory(dir / "full");
  test_support::write_file(dir / "full/something", "x");
  r = run_gguffs({kAlltypes, (dir / "full").string()});
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("not empty"), std::string::npos) << r.err;
  EXPECT_FALSE(is_fuse_mount(dir / "full"));

  mount_test::MountedModel m(kAlltypes);
  ASSERT_TRUE(m.mounted()) << m.result().err;
  r = run_gguffs({kAlltypes, m.path().string()});
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("already a mount point"), std::string::npos) << r.err;
  EXPECT_TRUE(m.unmount());
}

TEST(Cli, SummaryAndCheckPrintWithoutMounting) {
  REQUIRE_MOUNT();
  auto summary = run_gguffs({"summary", kAlltypes});
  EXPECT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_NE(summary.out.find("llama"), std::string::npos);
  mount_test::MountedModel m(kAlltypes);
  ASSERT_TRUE(m.mounted()) << m.result().err;
  EXPECT_EQ(summary.out, test_support::read_file(m / "summary.txt"));
  EXPECT_TRUE(m.unmount());

  const auto check = run_gguffs({"check", kAlltypes});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  TempDir dir;
  test_support::write_file(dir / "text.txt", "not a model\n");
  const auto bad = run_gguffs({"check", (dir / "text.txt").string()});
  EXPECT_EQ(bad.exit_code, 4);
  expect_one_line_message(bad.err);
}

TEST(Cli, SigtermUnmountsAForegroundDaemonAndExitsZero) {
  REQUIRE_MOUNT();
  for (int sig : {SIGTERM, SIGINT}) {
    TempDir dir;
    const pid_t pid = mount_test::spawn_gguffs({"-f", kAlltypes, dir.path().string()});
    ASSERT_TRUE(mount_test::wait_for_mount(dir.path(), true));
    EXPECT_TRUE(fsys::exists(dir / "summary.txt"));
    ASSERT_EQ(kill(pid, sig), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status)) << "signal " << sig;
    EXPECT_EQ(WEXITSTATUS(status), 0) << "signal " << sig;
    EXPECT_FALSE(is_fuse_mount(dir.path()));
  }
}

TEST(Cli, SingleThreadedAndOptionsWork) {
  REQUIRE_MOUNT();
  mount_test::MountedModel m(kAlltypes, {"-s", "-o", "fsname=mymodel,default_permissions"});
  ASSERT_TRUE(m.mounted()) << m.result().err;
  EXPECT_EQ(test_support::read_file(m / "metadata/general.name"), "oracle-all-types");
  const std::string mounts = test_support::read_file("/proc/self/mounts");
  EXPECT_NE(mounts.find("mymodel " + m.path().string() + " fuse.gguffs ro,"), std::string::npos)
      << mounts;
  EXPECT_TRUE(m.unmount());
}

}  // namespace
