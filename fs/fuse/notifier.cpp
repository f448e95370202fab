#include "fs/fuse/notifier.hpp"

namespace gguffs {

Notifier::Notifier(fuse_session* se) : se_(se), thread_([this] { run(); }) {}

Notifier::~Notifier() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  thread_.join();
}

void Notifier::post(Invalidations invalidations) {
  if (invalidations.names.empty() && invalidations.inodes.empty()) return;
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(invalidations));
  }
  ready_.notify_one();
}

void Notifier::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;
    const Invalidations job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    // Errors only say the kernel had nothing cached (ENOENT) or the mount is gone (ENODEV).
    for (const Invalidations::Name& n : job.names)
      fuse_lowlevel_notify_inval_entry(se_, n.parent, n.name.data(), n.name.size());
    for (const uint64_t inode : job.inodes) fuse_lowlevel_notify_inval_inode(se_, inode, 0, 0);
    lock.lock();
  }
}

}  // namespace gguffs
