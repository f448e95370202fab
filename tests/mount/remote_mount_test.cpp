// Remote models through the real mount, served by a real nginx on 127.0.0.1: every file of the
// mount of a URL equals, byte for byte, the same file of the mount of the file on disk (the
// all-types fixture, the GPT-2 vocabulary, a split model from each shard's URL, a Llama-3-sized
// vocabulary); mmap of model.gguf gives the file's bytes; https with a certificate made now,
// accepted with -o cacert= and refused without; a redirect from https to http refused; the
// disk cache makes a second read cost no request (counted in nginx's access log).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "fs/cli/exit_codes.hpp"
#include "gguf/writer.hpp"
#include "tests/mount/mount_fixture.hpp"
#include "tests/mount/remote_servers.hpp"
#include "tests/support/model_builders.hpp"

namespace {

namespace fsys = std::filesystem;
using mount_test::MountedModel;
using mount_test::run_gguffs;
using remote_test::Nginx;
using test_support::data_file;
using test_support::read_file;
using test_support::TempDir;

// The files nginx serves, copied (or written) once for the whole suite.
class Served {
 public:
  static const fsys::path& root() {
    static Served served;
    return served.dir_.path();
  }

 private:
  Served() {
    fsys::copy_file(data_file("alltypes/alltypes.gguf"), dir_ / "alltypes.gguf");
    fsys::copy_file(data_file("gpt2-vocab.gguf"), dir_ / "gpt2-vocab.gguf");
    for (int k = 1; k <= 3; ++k) {
      const std::string name = "split-0000" + std::to_string(k) + "-of-00003.gguf";
      fsys::copy_file(data_file("split/" + name), dir_ / name);
    }
    test_support::llama3_vocab_writer().write_file((dir_ / "vocab-llama3.gguf").string());
  }
  TempDir dir_;
};

// Every path under root (relative, sorted), with the bytes of each regular file.
std::map<std::string, std::string> walk(const fsys::path& root) {
  std::map<std::string, std::string> out;
  for (auto it = fsys::recursive_directory_iterator(root); it != fsys::end(it); ++it) {
    const std::string rel = fsys::relative(it->path(), root).string();
    out[rel] = it->is_regular_file() ? read_file(it->path()) : std::string("<dir>");
  }
  return out;
}

#define REQUIRE_NGINX()                                                  \
  do {                                                                   \
    REQUIRE_MOUNT();                                                     \
    if (!remote_test::have_nginx()) GTEST_SKIP() << "needs nginx-light"; \
  } while (0)

class RemoteEqualsLocal : public ::testing::TestWithParam<std::string> {};

TEST_P(RemoteEqualsLocal, EveryFileIsTheSameByteForByte) {
  REQUIRE_NGINX();
  Nginx nginx(Served::root());
  ASSERT_TRUE(nginx.running());
  MountedModel remote(nginx.url(GetParam()));
  ASSERT_EQ(remote.result().exit_code, 0) << remote.result().err;
  MountedModel local(Served::root() / GetParam());
  ASSERT_EQ(local.result().exit_code, 0) << local.result().err;
  const auto got = walk(remote.path());
  const auto want = walk(local.path());
  ASSERT_GT(want.size(), 5u);
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [path, bytes] : want) {
    const auto it = got.find(path);
    ASSERT_NE(it, got.end()) << path << " is missing from the remote mount";
    EXPECT_TRUE(it->second == bytes) << path << " differs";
  }
  // model.gguf is the file itself (for a split model, the merge the local mount shows).
  if (GetParam().find("-of-") == std::string::npos) {
    EXPECT_TRUE(read_file(remote / "model.gguf") == read_file(Served::root() / GetParam()));
  }
  EXPECT_TRUE(remote.unmount());
}

INSTANTIATE_TEST_SUITE_P(Files, RemoteEqualsLocal,
                         ::testing::Values("alltypes.gguf", "gpt2-vocab.gguf",
                                           "split-00001-of-00003.gguf", "split-00003-of-00003.gguf",
                                           "vocab-llama3.gguf"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace_if(
                               name.begin(), name.end(),
                               [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                               '_');
                           return name;
                         });

TEST(RemoteMount, MmapOfModelGgufGivesTheFilesBytes) {
  REQUIRE_NGINX();
  Nginx nginx(Served::root());
  MountedModel remote(nginx.url("gpt2-vocab.gguf"));
  ASSERT_EQ(remote.result().exit_code, 0) << remote.result().err;
  const std::string want = read_file(Served::root() / "gpt2-vocab.gguf");
  const int fd = open((remote / "model.gguf").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  void* p = mmap(nullptr, want.size(), PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(p, MAP_FAILED);
  EXPECT_EQ(std::memcmp(p, want.data(), want.size()), 0);
  munmap(p, want.size());
  close(fd);
  EXPECT_TRUE(remote.unmount());
}

TEST(RemoteMount, HttpsNeedsTheCertificate) {
  REQUIRE_NGINX();
  Nginx nginx(Served::root(), true);
  ASSERT_TRUE(nginx.running()) << "nginx with TLS did not start (openssl missing?)";
  const std::string cert = (nginx.prefix() / "cert.pem").string();
  MountedModel trusted(nginx.url("alltypes.gguf"), {"-o", "cacert=" + cert});
  ASSERT_EQ(trusted.result().exit_code, 0) << trusted.result().err;
  EXPECT_TRUE(read_file(trusted / "model.gguf") == read_file(Served::root() / "alltypes.gguf"));
  EXPECT_TRUE(trusted.unmount());

  TempDir mnt;
  const auto refused = run_gguffs({nginx.url("alltypes.gguf"), mnt.path().string()});
  EXPECT_EQ(refused.exit_code, gguffs::kExitRemoteUnusable);
  EXPECT_NE(refused.err.find("certificate"), std::string::npos) << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_FALSE(mount_test::is_fuse_mount(mnt.path()));
}

TEST(RemoteMount, RedirectFromHttpsToHttpIsRefused) {
  REQUIRE_NGINX();
  Nginx plain(Served::root());
  Nginx secure(Served::root(), true,
               "    location /downgrade/ { return 302 " + plain.url("alltypes.gguf") + "; }\n");
  ASSERT_TRUE(plain.running() && secure.running());
  const std::string cert = (secure.prefix() / "cert.pem").string();
  const auto r = run_gguffs({"summary", "-o", "cacert=" + cert, secure.url("downgrade/x.gguf")});
  EXPECT_EQ(r.exit_code, gguffs::kExitRemoteUnusable);
  EXPECT_NE(r.err.find("redirect from https to http"), std::string::npos) << r.err;
  EXPECT_TRUE(plain.requests().empty()) << "the http server was asked";
}

// A tensor beyond the first MiB, so reading it makes requests of its own.
void write_big_model(const fsys::path& path, std::string& data) {
  data.assign(size_t{6} << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 2654435761u) >> 13);
  gguf::Writer w;
  w.add("general.architecture", gguf::OwnedValue::string("llama"));
  w.add_tensor("big.weight", {data.size() / 4}, gguf::type_id::F32, data);
  w.write_file(path.string());
}

TEST(RemoteMount, DiskCacheMakesTheSecondReadFree) {
  REQUIRE_NGINX();
  TempDir root, cache;
  std::string data;
  write_big_model(root / "big.gguf", data);
  Nginx nginx(root.path());
  {
    MountedModel first(nginx.url("big.gguf"), {"-o", "cache_dir=" + cache.path().string()});
    ASSERT_EQ(first.result().exit_code, 0) << first.result().err;
    EXPECT_TRUE(read_file(first / "tensors/big.weight/data") == data);
    EXPECT_TRUE(first.unmount());
  }
  const size_t after_first = nginx.requests().size();
  EXPECT_GE(after_first, 2u);  // the first MiB, then the rest of the tensor
  MountedModel second(nginx.url("big.gguf"), {"-o", "cache_dir=" + cache.path().string()});
  ASSERT_EQ(second.result().exit_code, 0) << second.result().err;
  // Mounting asks once (the first MiB: size and ETag, to know the cached blocks are current).
  const size_t after_mount = nginx.requests().size();
  EXPECT_EQ(after_mount, after_first + 1);
  EXPECT_TRUE(read_file(second / "tensors/big.weight/data") == data);
  EXPECT_EQ(nginx.requests().size(), after_mount) << "the cached read went to the server";
  EXPECT_TRUE(second.unmount());
}

TEST(RemoteMount, MountTypeFuseGguffsTakesAUrl) {
  REQUIRE_NGINX();
  if (!fsys::exists("/usr/bin/unshare") || !fsys::exists("/sbin/mount.fuse3") ||
      !fsys::is_directory("/usr/local/sbin"))
    GTEST_SKIP() << "needs unshare and mount.fuse3";
  Nginx nginx(Served::root());
  TempDir dir;
  fsys::create_directories(dir / "bin");
  fsys::create_directory(dir / "mnt");
  fsys::create_symlink(test_support::gguffs_binary(), dir / "bin" / "gguffs");
  const std::string mnt = (dir / "mnt").string();
  // In a private mount namespace where mount(8)'s helper finds gguffs on its fixed PATH.
  const std::string script =
      "set -e\nmount --bind " + (dir / "bin").string() + " /usr/local/sbin\n" +
      "mount -t fuse.gguffs " + nginx.url("alltypes.gguf") + " " + mnt + " -o ro,cache_size=64M\n" +
      "cat " + mnt + "/metadata/general.architecture; echo\n" + "fusermount3 -u " + mnt + "\n";
  const auto r = mount_test::run("/usr/bin/unshare",
                                 {"-m", "--propagation", "private", "/bin/bash", "-c", script});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "llama\n");
  EXPECT_FALSE(mount_test::is_fuse_mount(dir / "mnt"));
}

TEST(RemoteMount, OfflineCommandsTakeUrls) {
  REQUIRE_NGINX();
  Nginx nginx(Served::root());
  const auto summary = run_gguffs({"summary", nginx.url("gpt2-vocab.gguf")});
  const auto local = run_gguffs({"summary", (Served::root() / "gpt2-vocab.gguf").string()});
  EXPECT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_EQ(summary.out, local.out);
  const auto ls = run_gguffs({"ls", nginx.url("split-00002-of-00003.gguf"), "tensors"});
  EXPECT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_EQ(
      ls.out,
      run_gguffs({"ls", data_file("split/split-00002-of-00003.gguf").string(), "tensors"}).out);
  const auto cat = run_gguffs({"cat", nginx.url("alltypes.gguf"), "model.gguf"});
  EXPECT_EQ(cat.exit_code, 0);
  EXPECT_TRUE(cat.out == read_file(Served::root() / "alltypes.gguf"));
  const auto check = run_gguffs({"check", nginx.url("alltypes.gguf")});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  const auto missing = run_gguffs({"summary", nginx.url("nope.gguf")});
  EXPECT_EQ(missing.exit_code, gguffs::kExitRemoteNotFound);
  EXPECT_NE(missing.err.find("HTTP 404"), std::string::npos) << missing.err;
}

TEST(RemoteMount, CheckDataAndDiffTakeUrls) {
  REQUIRE_NGINX();
  Nginx nginx(Served::root());
  const std::string local = (Served::root() / "alltypes.gguf").string();
  // Every tensor's bytes, fetched by range requests, validated as from the file on disk.
  const auto remote_check = run_gguffs({"check", "--data", nginx.url("alltypes.gguf")});
  const auto local_check = run_gguffs({"check", "--data", local});
  EXPECT_EQ(remote_check.exit_code, local_check.exit_code) << remote_check.err;
  EXPECT_EQ(remote_check.out, local_check.out);
  EXPECT_NE(remote_check.out.find("tensor data"), std::string::npos) << remote_check.out;
  // The same file over HTTP and on disk: no difference, keys and tensor bytes compared.
  const auto same = run_gguffs({"diff", nginx.url("alltypes.gguf"), local});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_TRUE(same.out.starts_with("same:")) << same.out;
  const auto other = run_gguffs({"diff", nginx.url("alltypes.gguf"), nginx.url("gpt2-vocab.gguf")});
  EXPECT_EQ(other.exit_code, gguffs::kExitDifferent) << other.err;
}

}  // namespace
