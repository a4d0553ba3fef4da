// TaskPool: a few threads that run independent durability steps at once — the fsyncs of
// different files, a directory sync, a change-log append — for Env::runConcurrently()
// (env.h). Each of those steps mostly waits for the device; run one after another, N of them
// cost N flush latencies, run at once their flushes overlap (the block layer merges
// concurrent cache flushes) and they cost about one. A delivery on one LMTP connection waits
// for every one of them, so this is what bounds its rate.
//
// The caller always takes part: it runs the first task itself, then takes back every task of
// its own that no worker has started yet and runs those too, then waits for the ones workers
// are running. So a busy or empty pool degrades to running the tasks in the caller's thread
// (never to a deadlock or a long queue), and a task may itself block on other threads (a
// change-log append waiting for its group's leader) without starving anyone.
//
// Fork: a child forked while the pool has threads inherits the pool's mutex and condition
// variable in whatever state the parent's threads left them, and none of the threads, so any
// use could hang (the multi-process tests fork). In any process but the one that made the
// pool, runAll() runs every task in the caller and never touches the pool's state. A thread
// that is starting up also allocates (its TLS and thread state), and a child forked then
// inherits the allocator's lock held by a thread it does not have; ASan's allocator has no
// fork handlers, so the child's first allocation hung. The constructor therefore returns only
// once every worker is parked in its wait, and an idle pool holds no lock but its own.
//
// Ownership: shared() is a process-wide pool, created on first use and never destroyed (its
// threads may be blocked in a syscall at exit). Thread-safety: runAll() may be called from any
// thread at once, from a task too (the caller rule makes that safe).
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "lib/base/status.h"

namespace darius::io {

class TaskPool {
 public:
  explicit TaskPool(size_t threads);
  ~TaskPool();  // stops and joins the workers; call only when no runAll() is in progress
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // The process-wide pool (8 threads).
  static TaskPool& shared();

  // Runs every task, some in worker threads, and returns once all have finished: the first
  // error in task order, else ok. A task that throws is a bug; it terminates the process.
  base::Status runAll(std::span<const std::function<base::Status()>> tasks);

 private:
  struct Batch;
  struct Item {
    Batch* batch;
    size_t index;
  };
  void work();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;  // guarded by mu_
  bool stop_ = false;       // guarded by mu_
  size_t parked_ = 0;       // workers that have reached their wait; guarded by mu_
  std::condition_variable parked_cv_;
  std::vector<std::thread> threads_;
  pid_t owner_pid_;  // the process whose threads these are (see Fork above)
};

}  // namespace darius::io
