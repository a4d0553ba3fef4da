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

ExpireScheduler::ExpireScheduler(mailbox::Store& store, mailbox::ExpirePolicy policy,
                                 int minute_of_day)
    : store_(store), policy_(policy), minute_of_day_(minute_of_day),
      thread_([this] { loop(); }) {}

ExpireScheduler::~ExpireScheduler() {
  stopping_ = true;
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ExpireScheduler::loop() {
  std::unique_lock<std::mutex> l(mu_);
  while (!stop_) {
    const int64_t now = static_cast<int64_t>(::time(nullptr));
    const int64_t at = nextRunAfter(now, minute_of_day_);
    // The system clock, not the steady one: the run is tied to the time of day, and a clock
    // step (NTP, suspend) must move it too. Rechecked every minute for the same reason.
    auto deadline = std::chrono::system_clock::from_time_t(static_cast<time_t>(at));
    while (!stop_ && std::chrono::system_clock::now() < deadline) {
      cv_.wait_until(l, std::min(deadline, std::chrono::system_clock::now() +
                                               std::chrono::minutes(1)));
    }
    if (stop_) break;
    l.unlock();
    mailbox::ExpireOptions o;
    o.policy = policy_;
    o.now = static_cast<int64_t>(::time(nullptr));
    o.stop = [this] { return stopping_.load(); };
    auto started = std::chrono::steady_clock::now();
    auto r = store_.expire(std::nullopt, o);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - started).count();
    if (!r.ok()) {
      log::error("expire: {}", r.status().toString());
    } else {
      size_t messages = 0;
      uint64_t bytes = 0;
      for (const auto& oc : *r) {
        messages += oc.removed_messages;
        bytes += oc.removed_bytes;
      }
      log::notice("expire: {} owners, removed {} messages ({} bytes) in {} ms", r->size(),
                  messages, bytes, ms);
    }
    l.lock();
  }
}

}  // namespace darius::server
