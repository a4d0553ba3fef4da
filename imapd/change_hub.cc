#include "imapd/change_hub.h"

#include <asio/experimental/as_tuple.hpp>

#include "lib/log/log.h"

namespace darius::imapd {

void Waker::wake() {
  asio::post(timer_.get_executor(), [weak = weak_from_this()] {
    if (auto self = weak.lock()) {
      self->signaled_ = true;
      self->timer_.cancel();
    }
  });
}

asio::awaitable<void> Waker::wait() {
  if (!signaled_) {
    timer_.expires_at(asio::steady_timer::time_point::max());
    co_await timer_.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
  }
  signaled_ = false;
}

ChangeHub::Subscription::~Subscription() { hub_->unsubscribe(id_, key_); }

ChangeHub::~ChangeHub() {
  for (auto& f : feeds_) {
    // The ChangeWatcher owns the inotify fd; the descriptor object must not close it too.
    if (f->fd) (void)f->fd->release();
  }
}

void ChangeHub::start(const asio::any_io_executor& executor) {
  std::call_once(started_, [&] {
    for (const mailbox::Partition& p : store_.partitions()) {
      mailbox::ChangeLog* log = store_.changeLog(p.name);
      if (log == nullptr) continue;
      auto next = log->nextSeq();
      auto feed = next.ok() ? mailbox::ChangeFeed::open(p.changeLogDir(), *next)
                            : base::Result<std::unique_ptr<mailbox::ChangeFeed>>(next.status());
      if (!feed.ok()) {
        log::warning("IDLE: cannot watch the change log of partition {}: {}", p.name,
                     feed.status().toString());
        continue;
      }
      auto f = std::make_unique<Feed>();
      f->fd = std::make_unique<asio::posix::stream_descriptor>(executor, (*feed)->fd());
      f->feed = std::move(*feed);
      feeds_.push_back(std::move(f));
      arm(*feeds_.back());
    }
  });
}

void ChangeHub::arm(Feed& feed) {
  feed.fd->async_wait(asio::posix::stream_descriptor::wait_read, [this, &feed](std::error_code ec) {
    if (ec) return;  // cancelled: the service is going away
    auto records = feed.feed->poll();
    if (records.ok()) {
      dispatch(*records);
    } else {
      log::warning("IDLE: change log: {}", records.status().toString());
    }
    arm(feed);
  });
}

void ChangeHub::dispatch(const std::vector<mailbox::ChangeRecord>& records) {
  std::vector<std::shared_ptr<Waker>> wake;
  {
    std::lock_guard<std::mutex> g(mu_);
    for (const mailbox::ChangeRecord& r : records) {
      auto it = subs_.find(r.mailbox_id);
      if (it == subs_.end()) continue;
      for (auto& [key, weak] : it->second) {
        if (auto w = weak.lock()) wake.push_back(std::move(w));
      }
    }
  }
  for (auto& w : wake) w->wake();
}

std::unique_ptr<ChangeHub::Subscription> ChangeHub::subscribe(const std::string& mailbox_id,
                                                              std::shared_ptr<Waker> waker) {
  std::lock_guard<std::mutex> g(mu_);
  uint64_t key = next_key_++;
  subs_[mailbox_id][key] = waker;
  return std::unique_ptr<Subscription>(new Subscription(this, mailbox_id, key));
}

void ChangeHub::unsubscribe(const std::string& id, uint64_t key) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = subs_.find(id);
  if (it == subs_.end()) return;
  it->second.erase(key);
  if (it->second.empty()) subs_.erase(it);
}

}  // namespace darius::imapd
