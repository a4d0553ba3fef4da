#include "lib/io/sync_barrier.h"

#include <memory>

namespace darius::io {

using base::Status;

uint64_t SyncBarrier::mark() const {
  std::lock_guard<std::mutex> lk(mu_);
  return stats_.failures;
}

Status SyncBarrier::sync(uint64_t mark) {
  std::unique_lock<std::mutex> lk(mu_);
  ++stats_.calls;
  if (!forming_) forming_ = std::make_shared<Group>();
  const std::shared_ptr<Group> g = forming_;
  while (!g->done) {
    if (running_ || forming_ != g) {
      // A syncfs is under way, and it may have started before our writes: wait for ours,
      // which one of our group leads (woken below) once that one has finished.
      g->cv.wait(lk);
      continue;
    }
    running_ = true;
    forming_.reset();  // who comes now waits for the next syncfs
    ++stats_.syncs;
    lk.unlock();
    Status s = fs_->sync();
    lk.lock();
    if (!s.isOk()) ++stats_.failures;
    g->status = s;
    g->failures = stats_.failures;
    g->done = true;
    running_ = false;
    const std::shared_ptr<Group> next = forming_;
    lk.unlock();
    g->cv.notify_all();
    if (next) next->cv.notify_one();  // its leader
    break;  // g is ours to read: done, and nobody writes it again
  }
  if (!g->status.isOk()) return g->status;
  if (mark != g->failures) {
    return Status::ioError(
        "a filesystem sync failed while this write was under way; its data may be lost");
  }
  return Status::ok();
}

SyncBarrier::Stats SyncBarrier::stats() const {
  std::lock_guard<std::mutex> lk(mu_);
  return stats_;
}

}  // namespace darius::io
