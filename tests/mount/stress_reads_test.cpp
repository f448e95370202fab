// Load: 16 threads read random ranges of random files through the mount for a bounded time and
// compare every byte with an independent source: data with the model file's bytes, data.f32
// with the fixture's reference floats (ggml's output), text files with the renderings. Meanwhile
// `ls -R`, `find | xargs cat` and `du -s` run and must keep giving the same answers. The daemon
// must not leak descriptors and its memory must stay steady.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "fs/tree/model_tree.hpp"
#include "gguf/parser.hpp"
#include "tests/mount/mount_fixture.hpp"

namespace {

namespace fsys = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kThreads = 16;
constexpr auto kDuration = std::chrono::seconds(15);

struct Expected {
  std::string path;   // relative to the mount point
  std::string bytes;  // what the whole file must hold
};

// Every file of the mounted alltypes fixture with its expected contents.
std::vector<Expected> expected_files(const fsys::path& model) {
  const std::string whole = test_support::read_file(model);
  const gguf::ModelPtr parsed = gguf::parse_file(model.string());
  std::map<std::string, std::string> reference_f32;
  for (const auto& row : test_support::alltypes_manifest())
    reference_f32[row.name] =
        test_support::read_file(test_support::data_file("alltypes/" + row.ref_file));

  const auto tree = gguffs::build_model_tree(parsed, gguffs::Owner{});
  std::vector<Expected> out;
  for (gguffs::Tree::Index i = 0; i < tree->size(); ++i) {
    const gguffs::Node& n = tree->node(i);
    if (n.is_dir()) continue;
    Expected e{tree->path_of(i), {}};
    const gguffs::Node& dir = tree->node(n.parent);
    const bool in_tensor_dir = tree->path_of(n.parent).rfind("tensors/", 0) == 0;
    const gguf::TensorInfo* tensor = nullptr;
    for (const auto& t : parsed->tensors)
      if (in_tensor_dir && t.name == dir.original) tensor = &t;
    if (e.path == "model.gguf") {
      e.bytes = whole;
    } else if (tensor && n.name == "data") {
      e.bytes = whole.substr(tensor->file_offset, tensor->bytes);
    } else if (tensor && n.name == "data.f32" && reference_f32.count(std::string(tensor->name))) {
      e.bytes = reference_f32[std::string(tensor->name)];
    } else {
      // Text and other derived files: the renderers' output, read without FUSE.
      gguffs::ReadBuffer buf(n.content->size());
      n.content->read(0, n.content->size(), buf);
      e.bytes = buf.to_string();
    }
    out.push_back(std::move(e));
  }
  return out;
}

// The daemon's descriptors: libfuse gives each worker thread its own splice pipe (closed when
// the thread ends), so pipes are counted apart and bounded by the threads; every other
// descriptor (the model file, /dev/fuse) must stay as it was.
struct Fds {
  size_t pipes = 0, others = 0, threads = 0;
};

Fds count_fds(pid_t pid) {
  Fds f;
  const fsys::path proc = "/proc/" + std::to_string(pid);
  for (const auto& e : fsys::directory_iterator(proc / "fd")) {
    std::error_code ec;
    const std::string target = fsys::read_symlink(e.path(), ec).string();
    ++(target.rfind("pipe:", 0) == 0 ? f.pipes : f.others);
  }
  for ([[maybe_unused]] const auto& e : fsys::directory_iterator(proc / "task")) ++f.threads;
  return f;
}

long rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

std::string shell(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return "popen failed";
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

struct Counters {
  std::atomic<uint64_t> reads{0}, bytes{0}, mismatches{0}, errors{0};
};

void reader(const fsys::path& mnt, const std::vector<Expected>& files, unsigned seed,
            Clock::time_point until, Counters& c) {
  std::mt19937_64 rng(seed);
  std::vector<char> buf(512 * 1024);
  while (Clock::now() < until) {
    const Expected& f = files[rng() % files.size()];
    // Half the opens bypass the page cache, so the reads really reach the daemon.
    const int flags = O_RDONLY | O_CLOEXEC | (rng() % 2 ? O_DIRECT : 0);
    int fd = open((mnt / f.path).c_str(), flags);
    if (fd < 0) fd = open((mnt / f.path).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      ++c.errors;
      continue;
    }
    for (int k = 0; k < 4; ++k) {
      const size_t size = f.bytes.size();
      const size_t off = size ? rng() % (size + 1) : 0;
      const size_t len = 1 + rng() % buf.size();
      const ssize_t n = pread(fd, buf.data(), len, static_cast<off_t>(off));
      const size_t want = off >= size ? 0 : std::min(len, size - off);
      ++c.reads;
      if (n < 0) {
        ++c.errors;
      } else if (static_cast<size_t>(n) != want || f.bytes.compare(off, want, buf.data(), want)) {
        ++c.mismatches;
      } else {
        c.bytes += static_cast<uint64_t>(n);
      }
    }
    close(fd);
  }
}

TEST(StressReads, SixteenThreadsReadRandomRangesAndEveryByteMatches) {
  REQUIRE_MOUNT();
  const fsys::path model = test_support::data_file("alltypes/alltypes.gguf");
  const std::vector<Expected> files = expected_files(model);
  ASSERT_GT(files.size(), 100u);

  test_support::TempDir dir;
  const fsys::path mnt = dir / "mnt";
  fsys::create_directory(mnt);
  const pid_t pid = mount_test::spawn_gguffs({"-f", model.string(), mnt.string()});
  ASSERT_TRUE(mount_test::wait_for_mount(mnt, true));

  // Answers of the tools before the load, to compare with while it runs.
  const std::string q = "'" + mnt.string() + "'";
  const std::string ls_before = shell("ls -R " + q);
  const std::string du_before = shell("du -s " + q);
  uint64_t total = 0;
  for (const Expected& f : files) total += f.bytes.size();
  const std::string cat_command = "cd " + q + " && find . -type f -print0 | xargs -0 cat | wc -c";
  ASSERT_EQ(std::stoull(shell(cat_command)), total);
  const Fds fds_before = count_fds(pid);

  Counters c;
  const auto start = Clock::now();
  const auto until = start + kDuration;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back(reader, mnt, std::cref(files), 1000u + t, until, std::ref(c));

  // Memory after a warm-up (every text rendered, thread stacks grown), then at the end.
  std::this_thread::sleep_for(kDuration / 4);
  const long rss_warm = rss_kib(pid);
  int tool_rounds = 0;
  while (Clock::now() + std::chrono::seconds(2) < until) {
    EXPECT_EQ(shell("ls -R " + q), ls_before);
    EXPECT_EQ(shell("du -s " + q), du_before);
    EXPECT_EQ(std::stoull(shell(cat_command)), total);
    ++tool_rounds;
  }
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const long rss_end = rss_kib(pid);
  const Fds fds_after = count_fds(pid);

  std::printf(
      "stress: %llu reads, %.1f MiB in %.1f s (%.0f reads/s), %d tool rounds, "
      "VmRSS %ld -> %ld KiB, fds %zu -> %zu (+ %zu splice pipe ends, %zu threads)\n",
      static_cast<unsigned long long>(c.reads.load()), c.bytes.load() / 1048576.0, seconds,
      c.reads.load() / seconds, tool_rounds, rss_warm, rss_end, fds_before.others, fds_after.others,
      fds_after.pipes, fds_after.threads);
  EXPECT_EQ(c.mismatches.load(), 0u);
  EXPECT_EQ(c.errors.load(), 0u);
  EXPECT_GT(c.reads.load(), 10000u);
  EXPECT_GT(tool_rounds, 0);
  EXPECT_EQ(fds_after.others, fds_before.others);
  EXPECT_LE(fds_after.pipes, 2 * fds_after.threads);
#if defined(__SANITIZE_ADDRESS__)
  // ASan's quarantine holds freed memory back on purpose: RSS grows by design.
  (void)rss_end;
#else
  EXPECT_LT(rss_end, rss_warm + 16 * 1024) << "the daemon's memory grew under a steady load";
#endif

  EXPECT_EQ(kill(pid, 0), 0);
  EXPECT_TRUE(mount_test::unmount(mnt));
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
