// SearchIndexer: dariusd keeps every mailbox's search index current (issue 19,
// mailbox/search_index.h) on a thread of its own, so that neither a delivery nor a session
// waits for indexing. The Store tells it which mailbox received messages (its append
// observer); it indexes that mailbox `delay` later, so a burst of deliveries to one mailbox
// costs one pass. A SEARCH that finds more unindexed messages than it will index itself asks
// for the same through Store::requestSearchIndex().
//
// Interactive work first: the thread runs at a lower CPU priority (nice 10), so under load
// the sessions and deliveries get the cores, and the indexing lag grows instead of their
// latency. The lag is bounded otherwise by `delay` plus the time to index what arrived.
//
// Ownership: borrows the Store, which must outlive it; the constructor installs the Store's
// append observer and the destructor removes it, then stops and joins the thread (a mailbox
// being indexed stops after its current message, keeping what it indexed as a segment; what
// is still pending is simply left: SEARCH catches up).
// Thread-safety: request() may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "mailbox/store.h"

namespace darius::server {

class SearchIndexer {
 public:
  SearchIndexer(mailbox::Store& store, std::chrono::milliseconds delay);
  ~SearchIndexer();
  SearchIndexer(const SearchIndexer&) = delete;
  SearchIndexer& operator=(const SearchIndexer&) = delete;

  // Index the mailbox in `dir` once `delay` has passed (a pending request keeps its time).
  void request(const std::string& dir);

 private:
  void run();
  void indexOne(const std::string& dir);

  mailbox::Store& store_;
  const std::chrono::milliseconds delay_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::chrono::steady_clock::time_point> pending_;  // dir -> due
  bool stop_ = false;
  std::atomic<bool> stopping_{false};  // read by the update in progress, without mu_
  std::thread thread_;
};

}  // namespace darius::server
