#include "lib/net/thread_priority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <asio/post.hpp>
#include <cerrno>
#include <latch>
#include <memory>
#include <mutex>
#include <string>

namespace darius::net {

namespace {

id_t currentThreadId() { return static_cast<id_t>(::syscall(SYS_gettid)); }

}  // namespace

int threadNice() {
  return ::getpriority(PRIO_PROCESS, currentThreadId());
}

base::Status lowerThisThreadPriority(int nice) {
  nice = std::clamp(nice, 0, 19);
  if (nice == 0 || threadNice() >= nice) return base::Status::ok();
  if (::setpriority(PRIO_PROCESS, currentThreadId(), nice) != 0) {
    return base::Status::fromErrno(errno, "setpriority(" + std::to_string(nice) + ")");
  }
  return base::Status::ok();
}

base::Status lowerPoolPriority(asio::thread_pool& pool, unsigned threads, int nice) {
  if (nice <= 0 || threads == 0) return base::Status::ok();
  // On the heap and shared by every task: a pool thread may still be inside
  // all_taken.arrive_and_wait() after the count reached zero, so neither latch may live on
  // this function's stack (a waiter would then sleep on freed memory and the pool never join).
  struct Barrier {
    explicit Barrier(unsigned n)
        : all_taken(static_cast<std::ptrdiff_t>(n)), done(static_cast<std::ptrdiff_t>(n)) {}
    std::latch all_taken;
    std::latch done;
    std::mutex mu;
    base::Status first = base::Status::ok();
  };
  auto barrier = std::make_shared<Barrier>(threads);
  for (unsigned i = 0; i < threads; ++i) {
    asio::post(pool, [barrier, nice] {
      base::Status s = lowerThisThreadPriority(nice);
      if (!s.isOk()) {
        std::lock_guard lock(barrier->mu);
        if (barrier->first.isOk()) barrier->first = s;
      }
      // Keeps this thread until every thread holds a task, so each thread takes exactly one.
      barrier->all_taken.arrive_and_wait();
      barrier->done.count_down();
    });
  }
  barrier->done.wait();
  std::lock_guard lock(barrier->mu);
  return barrier->first;
}

}  // namespace darius::net
