// ExpireScheduler: dariusd runs expire by itself (issue 18, docs/design/expunge.md) once a day
// at `expire_at` local time, over every owner, on a thread of its own so that no session
// waits for it (each mailbox's purge holds its lock for milliseconds, mailbox_purge.cc).
//
// Ownership: borrows the Store, which must outlive the scheduler; the destructor stops and
// joins the thread (an expire in progress finishes its current owner first).
// Thread-safety: construct and destroy on one thread; the run happens on the scheduler's.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>

#include "lib/base/result.h"
#include "mailbox/store.h"

namespace darius::server {

// "HH:MM" (00:00–23:59) as minutes after midnight; nullopt for "" (never); kInvalid else.
base::Result<std::optional<int>> parseExpireAt(std::string_view text);

// The first time after `now` (seconds since the epoch) whose local time of day is
// `minute_of_day`, in the process's time zone (a day with a DST jump still gets one run).
int64_t nextRunAfter(int64_t now, int minute_of_day);

class ExpireScheduler {
 public:
  ExpireScheduler(mailbox::Store& store, mailbox::ExpirePolicy policy, int minute_of_day);
  ~ExpireScheduler();
  ExpireScheduler(const ExpireScheduler&) = delete;
  ExpireScheduler& operator=(const ExpireScheduler&) = delete;

 private:
  void loop();

  mailbox::Store& store_;
  const mailbox::ExpirePolicy policy_;
  const int minute_of_day_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::atomic<bool> stopping_{false};  // read by the run between owners
  std::thread thread_;
};

}  // namespace darius::server
