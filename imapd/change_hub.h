// ChangeHub: how an IMAP session learns that its selected mailbox changed in another session,
// another process (lmtpd delivering, a tool) or this one, without polling the disk on a
// timer (issue 6: IDLE sees a change within 100 ms). One hub per ImapService watches the
// change log of every partition (mailbox::ChangeFeed: inotify) on the service's io_context and
// wakes the sessions subscribed to the mailbox a record names.
//
// Waker: what a session waits on. A wake-up that comes before the session waits is kept, so
// none is lost; several are folded into one (a wake-up only means "look again").
//
// Ownership: the ImapService owns the hub; a Subscription unsubscribes in its destructor and
// must not outlive the hub. Thread-safety: subscribe() and the Subscription destructor may be
// called from any session strand; the hub's own work runs on its executor.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "mailbox/change_watcher.h"
#include "mailbox/store.h"

namespace darius::imapd {

class Waker : public std::enable_shared_from_this<Waker> {
 public:
  explicit Waker(asio::any_io_executor strand) : timer_(strand) {}
  // From any thread: the next (or current) wait() returns. The Waker must be held by a
  // shared_ptr (a wake-up in flight keeps only a weak reference).
  void wake();
  // On the strand: returns at once if woken since the last wait, else when woken.
  asio::awaitable<void> wait();
  // On the strand: forget a wake-up that came in.
  void reset() { signaled_ = false; }

 private:
  asio::steady_timer timer_;
  bool signaled_ = false;  // on the strand only
};

class ChangeHub {
 public:
  class Subscription {
   public:
    ~Subscription();
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;

   private:
    friend class ChangeHub;
    Subscription(ChangeHub* hub, std::string id, uint64_t key)
        : hub_(hub), id_(std::move(id)), key_(key) {}
    ChangeHub* hub_;
    std::string id_;
    uint64_t key_;
  };

  explicit ChangeHub(mailbox::Store& store) : store_(store) {}
  ~ChangeHub();

  // Starts watching (once; later calls do nothing) on `executor`. A partition whose log cannot
  // be watched is logged; its sessions then see changes at their next command.
  void start(const asio::any_io_executor& executor);

  // `waker` is woken for every change of the mailbox `mailbox_id`. It must outlive the
  // returned Subscription.
  std::unique_ptr<Subscription> subscribe(const std::string& mailbox_id,
                                          std::shared_ptr<Waker> waker);

 private:
  struct Feed {
    std::unique_ptr<mailbox::ChangeFeed> feed;
    std::unique_ptr<asio::posix::stream_descriptor> fd;
  };
  void arm(Feed& feed);
  void dispatch(const std::vector<mailbox::ChangeRecord>& records);
  void unsubscribe(const std::string& id, uint64_t key);

  mailbox::Store& store_;
  std::once_flag started_;
  std::vector<std::unique_ptr<Feed>> feeds_;
  std::mutex mu_;
  uint64_t next_key_ = 1;  // guarded by mu_
  std::map<std::string, std::map<uint64_t, std::weak_ptr<Waker>>> subs_;  // guarded by mu_
};

}  // namespace darius::imapd
