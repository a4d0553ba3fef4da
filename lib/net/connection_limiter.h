// ConnectionLimiter: admission control for incoming connections, total and per client address,
// so one host cannot take every slot of the server (max_connections, max_connections_per_host).
//
// A granted slot is a move-only Ticket that gives the slot back when destroyed, so a session
// cannot leak its slot on any exit path. The limiter must outlive its tickets.
// Thread-safety: tryAcquire and the Ticket destructor may run on any thread.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace darius::net {

class ConnectionLimiter {
 public:
  ConnectionLimiter(size_t max_total, size_t max_per_host)
      : max_total_(max_total), max_per_host_(max_per_host) {}

  class Ticket {
   public:
    Ticket(Ticket&& o) noexcept : owner_(o.owner_), host_(std::move(o.host_)) { o.owner_ = nullptr; }
    Ticket& operator=(Ticket&& o) noexcept;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket() { release(); }

   private:
    friend class ConnectionLimiter;
    Ticket(ConnectionLimiter* owner, std::string host) : owner_(owner), host_(std::move(host)) {}
    void release();
    ConnectionLimiter* owner_;
    std::string host_;
  };

  // A slot for a connection from host, or nullopt when a limit is reached.
  std::optional<Ticket> tryAcquire(const std::string& host);

  size_t active() const;
  size_t activeFor(const std::string& host) const;

 private:
  void release(const std::string& host);

  const size_t max_total_;
  const size_t max_per_host_;
  mutable std::mutex mu_;
  size_t total_ = 0;
  std::unordered_map<std::string, size_t> per_host_;
};

}  // namespace darius::net
