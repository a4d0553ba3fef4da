// ExpireScheduler: dariusd runs expire by itself (issue 18, docs/design/expunge.md), on a
// thread of its own so that no session waits for it (each mailbox's purge holds its lock for
// milliseconds, mailbox_purge.cc):
//
// - nightly at `expire_at` local time, over every owner, followed by the store's tidying
//   (duplicates.db entries past their lifetime; compaction rides in Store::expire);
// - at once for one owner whose held expunged volume crosses their `expunge_vol_overflow`
//   (Hermes's third limit). The scheduler keeps an in-memory estimate per owner: seeded
//   lazily by one dry-run scan of the owner's expunged records the first time the owner
//   expunges something, increased by every expunge this process makes (the Store's expunge
//   observer: a map update, no I/O on the session's thread), and reset from each expire run's
//   outcome. The estimate is only a trigger: the run itself plans from the real records. So
//   an expunge by another process (the CLI) or an expire by `darius expire` makes it drift,
//   which only moves an at-once run a little earlier or later, never removes anything the
//   policy keeps.
//
// Ownership: borrows the Store, which must outlive the scheduler; the constructor installs
// the Store's expunge observer and the destructor removes it, then stops and joins the thread
// (an expire in progress finishes its current owner first). Build and destroy it while no
// session runs (dariusd does: before the listeners, after them).
// Thread-safety: noteExpunged() and requestOwner() may be called from any thread; the runs
// happen on the scheduler's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
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

struct ExpireSchedulerOptions {
  mailbox::ExpirePolicy policy;       // the global default (owners' overrides go over it)
  std::optional<int> minute_of_day;   // the nightly run; nullopt: none (at-once runs still)
  std::function<int64_t()> clock;     // seconds since the epoch for the runs; null: time()
  // The nightly tidying of duplicates.db (DuplicateDb::prune); null: none. Returns how many
  // entries went.
  std::function<base::Result<size_t>(int64_t now)> prune_duplicates;
  // The deleted-folder expire (deleted_* policy), which the deleted area provides; null:
  // none. Called by the nightly run with nullopt (every owner) and by an owner's at-once run
  // with that owner (mailbox::expireOwnerOf), after the expunged-message expire, on the
  // scheduler's thread.
  std::function<base::Status(const std::optional<mailbox::MailboxName>& owner, int64_t now)>
      expire_deleted;
  // After a DELETE kept a folder (noteDeleted): the deleted-folder expire of that owner for
  // the case it now holds more than its deleted_vol_overflow (ExpireOptions::overflow_only);
  // null: none. On the scheduler's thread.
  std::function<base::Status(const mailbox::MailboxName& owner, int64_t now)>
      deleted_overflow;
};

class ExpireScheduler {
 public:
  ExpireScheduler(mailbox::Store& store, ExpireSchedulerOptions options);
  ~ExpireScheduler();
  ExpireScheduler(const ExpireScheduler&) = delete;
  ExpireScheduler& operator=(const ExpireScheduler&) = delete;

  // The Store's expunge observer (installed by the constructor): `bytes` of `mailbox` were
  // just expunged. Cheap: one map update under a mutex; wakes the thread only to seed an
  // unknown owner or when the owner is past its overflow.
  void noteExpunged(const mailbox::MailboxName& mailbox, uint64_t bytes);
  // The Store's delete observer (installed by the constructor): a DELETE kept `mailbox` in
  // the deleted area. Queues the owner's deleted_overflow check (merged with one waiting).
  void noteDeleted(const mailbox::MailboxName& mailbox);
  // Runs expire at once, on the scheduler's thread, for the owner of `mailbox`
  // (mailbox::expireOwnerOf) alone, with the normal plan of the owner's effective policy.
  // Requests for an owner already waiting are merged.
  void requestOwner(const mailbox::MailboxName& mailbox);
  // Runs the nightly job (every owner, then the tidying) at once, on the scheduler's thread;
  // the next nightly run stays at its time.
  void requestNightly();

  // For tests and logs: runs completed so far, and the current estimate for an owner
  // (nullopt before it is seeded).
  size_t ownerRuns();
  size_t nightlyRuns();
  std::optional<uint64_t> heldEstimate(const mailbox::MailboxName& owner);
  // Blocks until ownerRuns() >= n and nothing waits to be seeded or run, or `timeout`
  // passes; returns whether it got there.
  bool waitIdle(size_t n, std::chrono::milliseconds timeout);

 private:
  struct OwnerState {
    bool seeded = false;
    bool queued = false;
    bool run = false;        // queued for a run (else for seeding only)
    bool deleted_check = false;  // queued for the deleted_overflow check (noteDeleted)
    uint64_t held = 0;       // estimate of the expunged bytes the owner holds
    uint64_t overflow = 0;   // the owner's effective vol_overflow (0: never at once)
  };

  void loop();
  int64_t now() const;
  mailbox::ExpireOptions runOptions();
  // Queue `key` (mu_ held).
  void enqueueLocked(const std::string& key, const mailbox::MailboxName& owner, bool run);
  // One owner, from the queue: seeds the estimate when needed, runs when past the overflow.
  void serveOwner(const mailbox::MailboxName& owner, bool run, bool deleted_check);
  void runNightly();
  // Sets the estimates from a run's outcomes (mu_ not held).
  void record(const std::vector<mailbox::ExpireOutcome>& outcomes);

  mailbox::Store& store_;
  const ExpireSchedulerOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;       // wakes the thread
  std::condition_variable idle_cv_;  // wakes waitIdle()
  std::map<std::string, OwnerState> owners_;   // by owner key, guarded by mu_
  std::deque<mailbox::MailboxName> queue_;     // guarded by mu_
  bool busy_ = false;                          // serving the queue; guarded by mu_
  bool nightly_requested_ = false;             // guarded by mu_
  size_t owner_runs_ = 0;                      // guarded by mu_
  size_t nightly_runs_ = 0;                    // guarded by mu_
  bool stop_ = false;
  std::atomic<bool> stopping_{false};  // read by the run between owners
  std::thread thread_;
};

}  // namespace darius::server
