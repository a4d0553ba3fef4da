#include "lib/net/thread_priority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <asio/post.hpp>
#include <cerrno>
#include <latch>
#include <mutex>
#include <string>

namespace darius::net {

namespace {

id_t currentThreadId() { return static_cast<id_t>(::syscall(SYS_gettid)); }

}  // namespace

int threadNice() {
  errno = 0;  // getpriority may return -1 as a value
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
  std::latch all_taken(static_cast<std::ptrdiff_t>(threads));
  std::mutex mu;
  base::Status first = base::Status::ok();
  for (unsigned i = 0; i < threads; ++i) {
    asio::post(pool, [&] {
      base::Status s = lowerThisThreadPriority(nice);
      if (!s.isOk()) {
        std::lock_guard lock(mu);
        if (first.isOk()) first = s;
      }
      // Keeps this thread until every thread holds a task, so each thread takes exactly one.
      all_taken.arrive_and_wait();
    });
  }
  all_taken.wait();
  std::lock_guard lock(mu);
  return first;
}

}  // namespace darius::net
