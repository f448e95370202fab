// Background threads for read-ahead requests, so a sequential reader does not wait for the
// blocks it will want next. The threads start at the first job, in the process that submits it:
// the daemon forks after the header is read (the parent's threads do not exist in the child), so
// a Prefetcher used in another process than the one that started its threads leaves the old
// state alone (never joined, never touched again) and starts afresh.
#pragma once

#include <functional>
#include <memory>
#include <mutex>

namespace gguf {

class Prefetcher {
 public:
  explicit Prefetcher(size_t threads);
  ~Prefetcher();
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // Runs job on a background thread (jobs must not throw). Returns false when no thread could
  // be started; the caller then runs the job itself.
  bool submit(std::function<void()> job);

 private:
  struct State;
  const size_t threads_;
  std::mutex guard_;        // guards state_ (no background thread takes it)
  State* state_ = nullptr;  // the threads and their queue, of the process that started them
};

}  // namespace gguf
