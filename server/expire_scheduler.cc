#include "server/expire_scheduler.h"

#include <chrono>
#include <ctime>

#include "lib/log/log.h"

namespace darius::server {

base::Result<std::optional<int>> parseExpireAt(std::string_view text) {
  if (text.empty()) return std::optional<int>();
  auto digit = [&](size_t i) { return text[i] >= '0' && text[i] <= '9'; };
  if (text.size() != 5 || text[2] != ':' || !digit(0) || !digit(1) || !digit(3) || !digit(4)) {
    return base::Status::invalid("expire_at: '" + std::string(text) + "' is not HH:MM");
  }
  int h = (text[0] - '0') * 10 + (text[1] - '0');
  int m = (text[3] - '0') * 10 + (text[4] - '0');
  if (h > 23 || m > 59) {
    return base::Status::invalid("expire_at: '" + std::string(text) + "' is not a time of day");
  }
  return std::optional<int>(h * 60 + m);
}

int64_t nextRunAfter(int64_t now, int minute_of_day) {
  time_t t = static_cast<time_t>(now);
  std::tm local{};
  ::localtime_r(&t, &local);
  for (int day = 0; day < 3; ++day) {
    std::tm want = local;
    want.tm_mday += day;
    want.tm_hour = minute_of_day / 60;
    want.tm_min = minute_of_day % 60;
    want.tm_sec = 0;
    want.tm_isdst = -1;  // let mktime decide across a DST change
    int64_t at = static_cast<int64_t>(::mktime(&want));
    if (at > now) return at;
  }
  return now + 86400;  // unreachable with a sane clock
}

ExpireScheduler::ExpireScheduler(mailbox::Store& store, ExpireSchedulerOptions options)
    : store_(store), options_(std::move(options)), thread_([this] { loop(); }) {
  store_.setExpungeObserver([this](const mailbox::MailboxName& mailbox, uint64_t bytes) {
    noteExpunged(mailbox, bytes);
  });
  store_.setDeleteObserver([this](const mailbox::MailboxName& mailbox) { noteDeleted(mailbox); });
}

ExpireScheduler::~ExpireScheduler() {
  store_.setExpungeObserver(nullptr);
  store_.setDeleteObserver(nullptr);
  stopping_ = true;
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

int64_t ExpireScheduler::now() const {
  return options_.clock ? options_.clock() : static_cast<int64_t>(::time(nullptr));
}

void ExpireScheduler::enqueueLocked(const std::string& key, const mailbox::MailboxName& owner,
                                    bool run) {
  OwnerState& st = owners_[key];
  st.run = st.run || run;
  if (st.queued) return;
  st.queued = true;
  queue_.push_back(owner);
  cv_.notify_all();
}

void ExpireScheduler::noteExpunged(const mailbox::MailboxName& mailbox, uint64_t bytes) {
  mailbox::MailboxName owner = mailbox::expireOwnerOf(mailbox);
  std::string key = owner.toString();
  std::lock_guard<std::mutex> g(mu_);
  OwnerState& st = owners_[key];
  st.held += bytes;
  if (!st.seeded) {
    enqueueLocked(key, owner, false);  // the seeding scan sees this expunge too
  } else if (st.overflow != 0 && st.held > st.overflow) {
    enqueueLocked(key, owner, true);
  }
}

void ExpireScheduler::noteDeleted(const mailbox::MailboxName& mailbox) {
  if (!options_.deleted_overflow) return;
  mailbox::MailboxName owner = mailbox::expireOwnerOf(mailbox);
  std::string key = owner.toString();
  std::lock_guard<std::mutex> g(mu_);
  owners_[key].deleted_check = true;
  enqueueLocked(key, owner, false);
}

void ExpireScheduler::requestOwner(const mailbox::MailboxName& mailbox) {
  mailbox::MailboxName owner = mailbox::expireOwnerOf(mailbox);
  std::lock_guard<std::mutex> g(mu_);
  enqueueLocked(owner.toString(), owner, true);
}

void ExpireScheduler::requestNightly() {
  std::lock_guard<std::mutex> g(mu_);
  nightly_requested_ = true;
  cv_.notify_all();
}

size_t ExpireScheduler::ownerRuns() {
  std::lock_guard<std::mutex> g(mu_);
  return owner_runs_;
}

size_t ExpireScheduler::nightlyRuns() {
  std::lock_guard<std::mutex> g(mu_);
  return nightly_runs_;
}

std::optional<uint64_t> ExpireScheduler::heldEstimate(const mailbox::MailboxName& owner) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = owners_.find(mailbox::expireOwnerOf(owner).toString());
  if (it == owners_.end() || !it->second.seeded) return std::nullopt;
  return it->second.held;
}

bool ExpireScheduler::waitIdle(size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> l(mu_);
  return idle_cv_.wait_for(l, timeout,
                           [&] {
    return owner_runs_ >= n && queue_.empty() && !busy_ && !nightly_requested_;
  });
}

mailbox::ExpireOptions ExpireScheduler::runOptions() {
  mailbox::ExpireOptions o;
  o.policy = options_.policy;
  o.now = now();
  o.stop = [this] { return stopping_.load(); };
  return o;
}

void ExpireScheduler::record(const std::vector<mailbox::ExpireOutcome>& outcomes) {
  std::lock_guard<std::mutex> g(mu_);
  for (const auto& oc : outcomes) {
    OwnerState& st = owners_[oc.owner_name];
    // What the run left, plus what was expunged while it ran (counted into `held` since the
    // run reset it; some of it the run may have seen too: the estimate errs high, which at
    // worst brings the next at-once run forward).
    st.held += oc.remainingBytes();
    st.overflow = oc.policy.vol_overflow;
    st.seeded = true;
  }
}

void ExpireScheduler::serveOwner(const mailbox::MailboxName& owner, bool run,
                                 bool deleted_check) {
  const std::string key = owner.toString();
  if (deleted_check && !run) {
    // The deleted area's volume is read afresh each time (the owner's folders' sizes): a
    // DELETE is rare next to an expunge, so no estimate is kept for it.
    if (base::Status s = options_.deleted_overflow(owner, now()); !s.isOk()) {
      log::error("expire: {}: deleted folders past deleted_vol_overflow: {}", key, s.toString());
    }
    std::lock_guard<std::mutex> g(mu_);
    ++owner_runs_;
    return;
  }
  bool seeded = false;
  {
    std::lock_guard<std::mutex> g(mu_);
    seeded = owners_[key].seeded;
  }
  if (!seeded) {
    // Seeding: a dry run of the owner's own expire reads what they hold and their policy.
    mailbox::ExpireOptions o = runOptions();
    o.dry_run = true;
    o.owner_only = true;
    {
      std::lock_guard<std::mutex> g(mu_);
      owners_[key].held = 0;  // expunges from here on add to the scan's sum
    }
    auto r = store_.expire(owner, o);
    if (!r.ok()) {
      log::warning("expire: {}: reading what it holds: {}", key, r.status().toString());
      return;  // stays unseeded: the next expunge tries again
    }
    std::lock_guard<std::mutex> g(mu_);
    OwnerState& st = owners_[key];
    for (const auto& oc : *r) {
      if (oc.owner_name != key) continue;
      st.held += oc.held_bytes;
      st.overflow = oc.policy.vol_overflow;
    }
    st.seeded = true;
    run = run || (st.overflow != 0 && st.held > st.overflow);
  }
  if (!run) return;
  mailbox::ExpireOptions o = runOptions();
  o.owner_only = true;
  {
    std::lock_guard<std::mutex> g(mu_);
    owners_[key].held = 0;
  }
  auto started = std::chrono::steady_clock::now();
  auto r = store_.expire(owner, o);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - started).count();
  if (!r.ok()) {
    log::error("expire: {}: {}", key, r.status().toString());
    std::lock_guard<std::mutex> g(mu_);
    owners_[key].seeded = false;  // unknown now: reseed at the next expunge
  } else {
    record(*r);
    for (const auto& oc : *r) {
      log::notice("expire: {} past expunge_vol_overflow ({} bytes held): removed {} messages "
                  "({} bytes) in {} ms",
                  oc.owner, oc.held_bytes, oc.removed_messages, oc.removed_bytes, ms);
      if (oc.policy.overflows(oc.remainingBytes())) {
        // Only with vol_min at or above vol_overflow: every expunge would run again.
        log::warning("expire: {}: still {} bytes held after an at-once run; check its "
                     "expunge_vol_min/expunge_vol_overflow", oc.owner, oc.remainingBytes());
      }
    }
  }
  if (options_.expire_deleted) {
    if (base::Status s = options_.expire_deleted(owner, o.now); !s.isOk()) {
      log::error("expire: {}: deleted folders: {}", key, s.toString());
    }
  }
  std::lock_guard<std::mutex> g(mu_);
  ++owner_runs_;
}

void ExpireScheduler::runNightly() {
  mailbox::ExpireOptions o = runOptions();
  {
    // Every owner's estimate restarts from this run's outcome.
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [key, st] : owners_) st.held = 0;
  }
  auto started = std::chrono::steady_clock::now();
  auto r = store_.expire(std::nullopt, o);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - started).count();
  if (!r.ok()) {
    log::error("expire: {}", r.status().toString());
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [key, st] : owners_) st.seeded = false;
  } else {
    record(*r);
    size_t messages = 0, compacted = 0;
    uint64_t bytes = 0;
    for (const auto& oc : *r) {
      messages += oc.removed_messages;
      bytes += oc.removed_bytes;
      compacted += oc.compacted_mailboxes;
    }
    log::notice("expire: {} owners, removed {} messages ({} bytes), compacted {} mailboxes in "
                "{} ms", r->size(), messages, bytes, compacted, ms);
  }
  if (options_.expire_deleted && !stopping_) {
    if (base::Status s = options_.expire_deleted(std::nullopt, o.now); !s.isOk()) {
      log::error("expire: deleted folders: {}", s.toString());
    }
  }
  if (options_.prune_duplicates && !stopping_) {
    auto pruned = options_.prune_duplicates(o.now);
    if (pruned.ok()) {
      log::notice("expire: duplicates.db: pruned {} entries past their lifetime", *pruned);
    } else {
      log::warning("expire: duplicates.db: {}", pruned.status().toString());
    }
  }
  // Change-log segments are not pruned: no reader's position is recorded anywhere yet (the
  // IDLE watchers tail from the end, replication is not built), so "every reader has passed"
  // has no answer. ChangeLog::pruneBefore() is for when replication records its position.
  std::lock_guard<std::mutex> g(mu_);
  ++nightly_runs_;
}

void ExpireScheduler::loop() {
  std::unique_lock<std::mutex> l(mu_);
  std::optional<int64_t> at;
  if (options_.minute_of_day) {
    at = nextRunAfter(static_cast<int64_t>(::time(nullptr)), *options_.minute_of_day);
  }
  while (!stop_) {
    if (!queue_.empty()) {
      mailbox::MailboxName owner = std::move(queue_.front());
      queue_.pop_front();
      OwnerState& st = owners_[owner.toString()];
      bool run = st.run;
      bool deleted_check = st.deleted_check;
      st.queued = false;
      st.run = false;
      st.deleted_check = false;
      busy_ = true;
      l.unlock();
      serveOwner(owner, run, deleted_check);
      l.lock();
      busy_ = false;
      idle_cv_.notify_all();
      continue;
    }
    // The system clock, not the steady one: the run is tied to the time of day, and a clock
    // step (NTP, suspend) must move it too. Rechecked every minute for the same reason.
    const bool due = at && static_cast<int64_t>(::time(nullptr)) >= *at;
    if (due || nightly_requested_) {
      nightly_requested_ = false;
      busy_ = true;
      l.unlock();
      runNightly();
      l.lock();
      busy_ = false;
      idle_cv_.notify_all();
      if (due) at = nextRunAfter(static_cast<int64_t>(::time(nullptr)), *options_.minute_of_day);
      continue;
    }
    auto wake = std::chrono::system_clock::now() + std::chrono::minutes(1);
    if (at) wake = std::min(wake, std::chrono::system_clock::from_time_t(static_cast<time_t>(*at)));
    cv_.wait_until(l, wake, [&] { return stop_ || !queue_.empty() || nightly_requested_; });
  }
}

}  // namespace darius::server
