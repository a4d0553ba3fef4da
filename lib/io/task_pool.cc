#include "lib/io/task_pool.h"

#include <unistd.h>

#include <algorithm>

namespace darius::io {

using base::Status;

struct TaskPool::Batch {
  std::span<const std::function<Status()>> tasks;
  std::vector<Status> results;
  std::mutex mu;
  std::condition_variable cv;
  size_t running = 0;  // handed to workers and not finished; guarded by mu
};

TaskPool::TaskPool(size_t threads) : owner_pid_(::getpid()) {
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  // Wait until every worker is parked (see Fork in the header). A worker counts itself while
  // holding mu_ and releases mu_ only inside cv_.wait, so once this wait re-acquires mu_ with
  // the count complete, every worker is blocked in the condition variable, past the
  // allocations of its start-up.
  std::unique_lock<std::mutex> lk(mu_);
  parked_cv_.wait(lk, [&] { return parked_ == threads_.size(); });
}

TaskPool::~TaskPool() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

TaskPool& TaskPool::shared() {
  // Leaked on purpose (see the header): workers may sit in an fsync while the process exits.
  static TaskPool* const pool = new TaskPool(8);
  return *pool;
}

void TaskPool::work() {
  std::unique_lock<std::mutex> lk(mu_);
  ++parked_;
  parked_cv_.notify_one();
  for (;;) {
    cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
    if (stop_ && queue_.empty()) return;
    Item item = queue_.front();
    queue_.pop_front();
    lk.unlock();
    Batch& b = *item.batch;
    {
      Status s = b.tasks[item.index]();
      // Notified under the batch's mutex: its owner cannot return (and destroy the batch on
      // its stack) before this thread has let go of it.
      std::lock_guard<std::mutex> g(b.mu);
      b.results[item.index] = std::move(s);
      --b.running;
      b.cv.notify_all();
    }
    lk.lock();
  }
}

Status TaskPool::runAll(std::span<const std::function<Status()>> tasks) {
  if (tasks.empty()) return Status::ok();
  if (::getpid() != owner_pid_) {
    // A forked child: the pool's threads are not here, and its locks may be held forever.
    Status first = Status::ok();
    for (const auto& t : tasks) {
      Status s = t();
      if (first.isOk() && !s.isOk()) first = std::move(s);
    }
    return first;
  }
  Batch b;
  b.tasks = tasks;
  b.results.resize(tasks.size());
  if (tasks.size() > 1 && !threads_.empty()) {
    // Counted before any is queued: a worker may take and finish one at once, and its
    // decrement must not be overwritten (that lost the wakeup and hung the caller).
    {
      std::lock_guard<std::mutex> g(b.mu);
      b.running = tasks.size() - 1;
    }
    {
      std::lock_guard<std::mutex> g(mu_);
      for (size_t i = 1; i < tasks.size(); ++i) queue_.push_back({&b, i});
    }
    for (size_t i = 1; i < tasks.size(); ++i) cv_.notify_one();
  }
  b.results[0] = tasks[0]();
  if (tasks.size() > 1) {
    // Take back whatever no worker has started, and run it here.
    std::vector<size_t> mine;
    if (!threads_.empty()) {
      std::lock_guard<std::mutex> g(mu_);
      for (auto it = queue_.begin(); it != queue_.end();) {
        if (it->batch == &b) {
          mine.push_back(it->index);
          it = queue_.erase(it);
        } else {
          ++it;
        }
      }
    } else {
      for (size_t i = 1; i < tasks.size(); ++i) mine.push_back(i);
    }
    for (size_t i : mine) b.results[i] = tasks[i]();
    std::unique_lock<std::mutex> lk(b.mu);
    if (!threads_.empty()) b.running -= mine.size();
    b.cv.wait(lk, [&] { return b.running == 0; });
  }
  for (Status& s : b.results) {
    if (!s.isOk()) return s;
  }
  return Status::ok();
}

}  // namespace darius::io
