// ConnectionLimiter: admission control for incoming connections, total and per client address,
// so one host cannot take every slot of the server (max_connections, max_connections_per_host).
//
// At a limit the newcomer is not simply refused: the oldest connection that has not
// authenticated is closed to make room for it — the host's own oldest at the per-host limit,
// the oldest of all at the total limit — as Dovecot's login processes do. Refusing instead let
// 200 idle connections that never log in lock every user of their address out until they
// timed out. An authenticated session is never closed for a limit; when nothing else can be,
// the newcomer is refused as before.
//
// A granted slot is a move-only Ticket that gives the slot back when destroyed, so a session
// cannot leak its slot on any exit path. A ticket acquired with an evictor may be chosen to
// make room until markAuthenticated(); one acquired without never is (LMTP: its client never
// logs in, and RFC 5321 §3.8 lets a server close only after QUIT, a 421 or a timeout). The
// evicted connection's slot goes to the newcomer at once; the evicted connection itself
// lingers only as long as its goodbye takes, and at most ServerHostOptions::eviction_goodbye,
// after which Connection resets it (a client that stops reading cannot hold the socket).
//
// Eviction and authentication can race: a victim's login may complete while the eviction is
// on its way to the victim's strand. Authentication wins: markAuthenticated() on an evicted
// ticket counts it again, so that host (and the total) is over its limit by one until the
// session ends, and the session is not closed.
//
// Ownership: the limiter must outlive its tickets. Thread-safety: every member, and every
// Ticket operation, may be called from any thread (one mutex). An evictor is called with the
// mutex released, on the thread of the tryAcquire that chose its connection; it should only
// hand the close over to the victim's own strand. It is destroyed with the mutex released too
// (what it holds may take locks as it goes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace darius::net {

class ConnectionLimiter {
 public:
  // Closes the connection a ticket stands for; see tryAcquire.
  using Evictor = std::function<void()>;

  ConnectionLimiter(size_t max_total, size_t max_per_host)
      : max_total_(max_total), max_per_host_(max_per_host) {}
  ConnectionLimiter(const ConnectionLimiter&) = delete;
  ConnectionLimiter& operator=(const ConnectionLimiter&) = delete;

  class Ticket {
   public:
    Ticket(Ticket&& o) noexcept : owner_(o.owner_), id_(o.id_) { o.owner_ = nullptr; }
    Ticket& operator=(Ticket&& o) noexcept;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket() { release(); }

    // The session has authenticated: from now on it is never chosen to make room.
    void markAuthenticated();

   private:
    friend class ConnectionLimiter;
    Ticket(ConnectionLimiter* owner, uint64_t id) : owner_(owner), id_(id) {}
    void release();
    ConnectionLimiter* owner_;
    uint64_t id_;
  };

  // A slot for a connection from `host`. At a limit, the oldest connection that has not
  // authenticated and can make room (see the top) is chosen, its evictor called, and its slot
  // given to this one; nullopt when there is none. `evict` is how to close this connection
  // should it be chosen later; empty: it never is.
  std::optional<Ticket> tryAcquire(const std::string& host, Evictor evict = {});

  // Slots in use (an evicted connection no longer holds one).
  size_t active() const;
  size_t activeFor(const std::string& host) const;

 private:
  struct Entry {
    std::string host;
    Evictor evict;        // set while the connection may be chosen
    bool counted = true;  // false once evicted: its slot went to a newcomer
  };
  struct Host {
    size_t count = 0;              // counted entries
    std::set<uint64_t> evictable;  // ids of the entries that may be chosen, oldest first
  };

  void release(uint64_t id);
  void markAuthenticated(uint64_t id);
  // Takes `id` out of the counts and the evictable sets; returns its evictor. Erases its
  // Host when it becomes empty, unless it is `keep` (the newcomer's, about to be used).
  Evictor evictLocked(uint64_t id, const Host* keep);

  const size_t max_total_;
  const size_t max_per_host_;
  mutable std::mutex mu_;
  uint64_t next_id_ = 1;  // ids grow with admission, so the smallest is the oldest
  size_t total_ = 0;
  std::unordered_map<uint64_t, Entry> entries_;
  std::unordered_map<std::string, Host> hosts_;
  std::set<uint64_t> evictable_;  // of every host, oldest first
};

}  // namespace darius::net
