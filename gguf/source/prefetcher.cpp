#include "gguf/source/prefetcher.hpp"

#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <system_error>
#include <thread>
#include <vector>

namespace gguf {

struct Prefetcher::State {
  pid_t pid = ::getpid();
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::function<void()>> queue;
  bool stopping = false;
  std::vector<std::thread> threads;

  void work() {
    while (true) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex);
        wake.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty()) return;  // stopping, and nothing left
        job = std::move(queue.front());
        queue.pop_front();
      }
      job();
    }
  }
};

Prefetcher::Prefetcher(size_t threads) : threads_(threads) {}

Prefetcher::~Prefetcher() {
  std::lock_guard guard(guard_);
  if (!state_ || state_->pid != ::getpid()) return;  // another process's threads: leave them
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
    state_->queue.clear();  // read-ahead nobody will read
  }
  state_->wake.notify_all();
  for (std::thread& t : state_->threads) t.join();
  delete state_;
}

bool Prefetcher::submit(std::function<void()> job) {
  std::lock_guard guard(guard_);
  if (!state_ || state_->pid != ::getpid()) {
    // The first job here, or the first since a fork: the state of the parent is dropped unseen
    // (its threads are not in this process; joining or destroying them is not possible).
    state_ = new State;
    try {
      for (size_t i = 0; i < threads_; ++i)
        state_->threads.emplace_back([s = state_] { s->work(); });
    } catch (const std::system_error&) {
      if (state_->threads.empty()) return false;
    }
  }
  {
    std::lock_guard lock(state_->mutex);
    state_->queue.push_back(std::move(job));
  }
  state_->wake.notify_one();
  return true;
}

}  // namespace gguf
