// fs/request_loop: the reader answers everything but reads, which go to worker threads (or, with
// -s, are answered by the reader too). Both ways must serve the same bytes, and the daemon must
// stop cleanly while reads are still arriving.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "fs/tree/names.hpp"
#include "gguf/parser.hpp"
#include "tests/mount/mount_fixture.hpp"

namespace {

namespace fsys = std::filesystem;
using mount_test::MountedModel;
using test_support::read_file;

const fsys::path kAlltypes = test_support::data_file("alltypes/alltypes.gguf");

// Every tensor's data equals its bytes in the model file and every data.f32 equals ggml's own
// float32 output (ref/<index>.f32).
void expect_every_tensor_served(const MountedModel& m) {
  const auto model = gguf::parse_file(kAlltypes.string());
  const std::string file = read_file(kAlltypes);
  for (const auto& row : test_support::alltypes_manifest()) {
    SCOPED_TRACE(row.name);
    const fsys::path dir = m / ("tensors/" + gguffs::names::encode(row.name));
    const gguf::TensorInfo& t = model->tensors.at(static_cast<size_t>(row.index));
    EXPECT_TRUE(read_file(dir / "data") == file.substr(t.file_offset, row.bytes));
    EXPECT_TRUE(read_file(dir / "data.f32") ==
                read_file(test_support::data_file("alltypes/" + row.ref_file)));
  }
}

// Reads the file with O_DIRECT, so that every read reaches the daemon instead of the page cache;
// false once the mount is gone.
bool read_uncached(const fsys::path& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return false;
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, 64 * 1024) != 0) abort();
  ssize_t n;
  while ((n = read(fd, buf, 64 * 1024)) > 0) continue;
  free(buf);
  close(fd);
  return n == 0;
}

TEST(RequestLoop, WorkersServeEveryTensor) {
  REQUIRE_MOUNT();
  MountedModel m(kAlltypes);
  ASSERT_TRUE(m.mounted()) << m.result().err;
  expect_every_tensor_served(m);
}

TEST(RequestLoop, SingleThreadedServesEveryTensor) {
  REQUIRE_MOUNT();
  MountedModel m(kAlltypes, {"-s"});
  ASSERT_TRUE(m.mounted()) << m.result().err;
  expect_every_tensor_served(m);
}

// Readers keep the workers busy while the daemon is told to stop: it must unmount and exit 0
// instead of hanging on a worker or on the reader's read(2).
TEST(RequestLoop, StopsCleanlyWhileReadsAreInFlight) {
  REQUIRE_MOUNT();
  for (int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(sig);
    test_support::TempDir dir;
    const pid_t pid = mount_test::spawn_gguffs({"-f", kAlltypes.string(), dir.path().string()});
    ASSERT_TRUE(mount_test::wait_for_mount(dir.path(), true));
    std::atomic<bool> stop{false};
    std::atomic<int> reads{0};
    std::vector<std::thread> readers;
    for (const auto& row : test_support::alltypes_manifest()) {
      if (readers.size() == 4) break;
      const fsys::path f32 = dir.path() / "tensors" / gguffs::names::encode(row.name) / "data.f32";
      readers.emplace_back([f32, &stop, &reads] {
        while (!stop.load() && read_uncached(f32)) reads.fetch_add(1);
      });
    }
    while (reads.load() < 20) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_EQ(kill(pid, sig), 0);

    int status = 0;
    pid_t done = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const bool stopped = done == pid;
    if (!stopped) {  // a hung daemon: kill it so that the readers' reads fail and they end
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
    }
    stop.store(true);
    for (std::thread& r : readers) r.join();
    if (!stopped) {
      mount_test::unmount(dir.path());
      FAIL() << "the daemon did not stop within 10 s";
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_FALSE(mount_test::is_fuse_mount(dir.path()));
  }
}

}  // namespace
