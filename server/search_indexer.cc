#include "server/search_indexer.h"

#include "lib/log/log.h"
#include "lib/net/thread_priority.h"
#include "mailbox/mailbox.h"
#include "mailbox/search_index.h"

namespace darius::server {

SearchIndexer::SearchIndexer(mailbox::Store& store, std::chrono::milliseconds delay)
    : store_(store), delay_(delay) {
  store_.setAppendObserver([this](const std::string& dir) { request(dir); });
  thread_ = std::thread([this] { run(); });
}

SearchIndexer::~SearchIndexer() {
  store_.setAppendObserver(nullptr);
  stopping_.store(true);  // an update in progress ends after its current message
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void SearchIndexer::request(const std::string& dir) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_.count(dir) != 0) return;
    pending_.emplace(dir, std::chrono::steady_clock::now() + delay_);
  }
  cv_.notify_one();
}

void SearchIndexer::run() {
  (void)net::lowerThisThreadPriority(10);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (pending_.empty()) {
      cv_.wait(lock);
      continue;
    }
    auto next = pending_.begin();
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if (it->second < next->second) next = it;
    }
    if (next->second > std::chrono::steady_clock::now()) {
      cv_.wait_until(lock, next->second);
      continue;
    }
    std::string dir = next->first;
    pending_.erase(next);
    lock.unlock();
    indexOne(dir);
    lock.lock();
  }
}

void SearchIndexer::indexOne(const std::string& dir) {
  auto m = mailbox::Mailbox::open(store_.env(), dir);
  if (!m.ok()) {
    // Deleted or renamed since: nothing to index there.
    if (m.status().code() != base::Code::kNotFound) {
      log::warning("search index: open {}: {}", dir, m.status().toString());
    }
    return;
  }
  mailbox::SearchUpdateOptions opt;
  opt.stop = [this] { return stopping_.load(std::memory_order_relaxed); };
  auto u = mailbox::updateSearchIndex(**m, opt);
  if (!u.ok()) {
    log::warning("search index: {}: {}", dir, u.status().toString());
    return;
  }
  if (u->rebuilt) log::notice("search index: {}: damaged index replaced", dir);
  if (u->unreadable > 0) {
    log::warning("search index: {}: {} message file(s) could not be read", dir, u->unreadable);
  }
}

}  // namespace darius::server
