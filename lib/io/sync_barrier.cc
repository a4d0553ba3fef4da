#include "lib/io/sync_barrier.h"

#include <vector>

namespace darius::io {

using base::Status;

uint64_t SyncBarrier::mark() const {
  std::lock_guard<std::mutex> lk(mu_);
  return stats_.failures;
}

Status SyncBarrier::sync(uint64_t mark) {
  Waiter me;
  me.mark = mark;
  std::unique_lock<std::mutex> lk(mu_);
  ++stats_.calls;
  queue_.push_back(&me);
  while (!me.done) {
    if (running_) {
      // A syncfs is under way, but it may have started before our writes: wait for the next.
      cv_.wait(lk);
      continue;
    }
    running_ = true;
    std::vector<Waiter*> group(queue_.begin(), queue_.end());
    queue_.clear();
    ++stats_.syncs;
    lk.unlock();
    Status s = fs_->sync();
    lk.lock();
    if (!s.isOk()) ++stats_.failures;
    for (Waiter* w : group) {
      if (!s.isOk()) {
        w->status = s;
      } else if (w->mark != stats_.failures) {
        w->status = Status::ioError(
            "a filesystem sync failed while this write was under way; its data may be lost");
      } else {
        w->status = Status::ok();
      }
      w->done = true;
    }
    running_ = false;
    cv_.notify_all();
  }
  return me.status;
}

SyncBarrier::Stats SyncBarrier::stats() const {
  std::lock_guard<std::mutex> lk(mu_);
  return stats_;
}

}  // namespace darius::io
