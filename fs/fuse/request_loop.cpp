#include "fs/fuse/request_loop.hpp"

#include <linux/fuse.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace gguffs {

namespace {

// Reads waiting for a worker. A read request is a header and a fuse_read_in (80 bytes), so each
// is copied out of the reader's buffer, which is needed again at once.
class ReadQueue {
 public:
  void push(const void* request, size_t size) {
    const auto* bytes = static_cast<const uint8_t*>(request);
    {
      std::lock_guard lock(mutex_);
      jobs_.emplace_back(bytes, bytes + size);
    }
    ready_.notify_one();
  }

  // The next request, or false once closed and drained.
  bool pop(std::vector<uint8_t>& job) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return closed_ || !jobs_.empty(); });
    if (jobs_.empty()) return false;
    job = std::move(jobs_.front());
    jobs_.pop_front();
    return true;
  }

  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::vector<uint8_t>> jobs_;
  bool closed_ = false;
};

void process(fuse_session* se, std::vector<uint8_t>& request) {
  fuse_buf buf = {};
  buf.size = request.size();
  buf.mem = request.data();
  fuse_session_process_buf(se, &buf);
}

bool is_read(const fuse_buf& buf, int size) {
  if (buf.flags & FUSE_BUF_IS_FD || size < static_cast<int>(sizeof(fuse_in_header))) return false;
  return static_cast<const fuse_in_header*>(buf.mem)->opcode == FUSE_READ;
}

// Polls the device until a request is waiting, the session ends or the time is up.
void watch_for_request(fuse_session* se, std::chrono::microseconds spin) {
  if (spin.count() <= 0) return;
  const auto deadline = std::chrono::steady_clock::now() + spin;
  pollfd p = {fuse_session_fd(se), POLLIN, 0};
  while (!fuse_session_exited(se) && std::chrono::steady_clock::now() < deadline)
    if (poll(&p, 1, 0) != 0) return;
}

// Workers leave the session's signals (SIGINT, SIGTERM, SIGHUP) to the reader, whose read(2)
// they interrupt so that it sees the session has ended.
std::vector<std::thread> start_workers(fuse_session* se, ReadQueue& queue, unsigned count) {
  sigset_t blocked, old;
  sigemptyset(&blocked);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&blocked, s);
  pthread_sigmask(SIG_BLOCK, &blocked, &old);  // the workers inherit the mask
  std::vector<std::thread> workers;
  for (unsigned i = 0; i < count; ++i) {
    workers.emplace_back([se, &queue] {
      std::vector<uint8_t> job;
      while (queue.pop(job)) process(se, job);
    });
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return workers;
}

}  // namespace

int serve_requests(fuse_session* se, const RequestLoopOptions& options) {
  ReadQueue queue;
  std::vector<std::thread> workers = start_workers(se, queue, options.workers);
  fuse_buf buf = {};
  int error = 0;
  while (!fuse_session_exited(se)) {
    const int res = fuse_session_receive_buf(se, &buf);
    if (res == -EINTR || res == -EAGAIN) continue;
    if (res <= 0) {  // 0: the kernel ended the session (unmounted)
      error = res;
      fuse_session_exit(se);
      break;
    }
    if (!is_read(buf, res)) {
      fuse_session_process_buf(se, &buf);
      // Lookups, listings and attributes come one after another from one process (ls -lR,
      // find): stay awake for the next. Reads do not need it: the kernel's read-ahead keeps
      // several in flight, and watching would take a CPU from the reading process.
      watch_for_request(se, options.spin);
    } else if (workers.empty()) {
      fuse_session_process_buf(se, &buf);
    } else {
      queue.push(buf.mem, static_cast<size_t>(res));
    }
  }
  queue.close();  // workers finish the reads already taken, then leave
  for (std::thread& w : workers) w.join();
  free(buf.mem);
  return error;
}

}  // namespace gguffs
