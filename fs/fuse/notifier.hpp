// Sends an editable mount's cache invalidations (fs/edit/editor.hpp) to the kernel from a thread
// of its own. libfuse documents that calling fuse_lowlevel_notify_* from the request that caused
// them (or while holding what such a request needs) can deadlock: the kernel may hold the
// directory's lock until that request is answered.
#pragma once

#define FUSE_USE_VERSION 34
#include <fuse3/fuse_lowlevel.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "fs/edit/editor.hpp"

namespace gguffs {

class Notifier {
 public:
  explicit Notifier(fuse_session* se);
  ~Notifier();  // sends what is queued, then stops
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  void post(Invalidations invalidations);

 private:
  void run();

  fuse_session* se_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Invalidations> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace gguffs
