#include "lib/net/connection_limiter.h"

#include <utility>

namespace darius::net {

ConnectionLimiter::Ticket& ConnectionLimiter::Ticket::operator=(Ticket&& o) noexcept {
  if (this != &o) {
    release();
    owner_ = o.owner_;
    id_ = o.id_;
    o.owner_ = nullptr;
  }
  return *this;
}

void ConnectionLimiter::Ticket::release() {
  if (owner_) owner_->release(id_);
  owner_ = nullptr;
}

void ConnectionLimiter::Ticket::markAuthenticated() {
  if (owner_) owner_->markAuthenticated(id_);
}

std::optional<ConnectionLimiter::Ticket> ConnectionLimiter::tryAcquire(const std::string& host,
                                                                       Evictor evict) {
  Evictor victim_evict;
  std::optional<Ticket> ticket;
  {
    std::lock_guard lock(mu_);
    Host& h = hosts_[host];
    // One eviction must make room under both limits. A count over its limit (an eviction
    // that lost to a login, see the header) is more than one eviction can fix: refuse.
    std::optional<uint64_t> victim;
    bool refuse = false;
    if (h.count >= max_per_host_) {
      if (h.count == max_per_host_ && !h.evictable.empty()) {
        victim = *h.evictable.begin();
      } else {
        refuse = true;
      }
    }
    if (!refuse && total_ - (victim ? 1 : 0) >= max_total_) {
      if (!victim && total_ == max_total_ && !evictable_.empty()) {
        victim = *evictable_.begin();
      } else {
        refuse = true;
      }
    }
    if (refuse) {
      if (h.count == 0) hosts_.erase(host);
      return std::nullopt;
    }
    if (victim) victim_evict = evictLocked(*victim, &h);
    const uint64_t id = next_id_++;
    ++h.count;
    ++total_;
    if (evict) {
      h.evictable.insert(id);
      evictable_.insert(id);
    }
    entries_.emplace(id, Entry{host, std::move(evict), true});
    ticket = Ticket(this, id);
  }
  // Outside the lock: the evictor may take other locks (the victim's strand, the log).
  if (victim_evict) victim_evict();
  return ticket;
}

ConnectionLimiter::Evictor ConnectionLimiter::evictLocked(uint64_t id, const Host* keep) {
  Entry& e = entries_.at(id);
  Evictor out = std::move(e.evict);
  e.evict = nullptr;
  e.counted = false;
  --total_;
  evictable_.erase(id);
  auto it = hosts_.find(e.host);
  it->second.evictable.erase(id);
  if (--it->second.count == 0 && &it->second != keep) hosts_.erase(it);
  return out;
}

void ConnectionLimiter::release(uint64_t id) {
  Evictor dropped;  // destroyed after the lock is released, like every evictor
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  if (it->second.counted) dropped = evictLocked(id, nullptr);
  entries_.erase(it);
}

void ConnectionLimiter::markAuthenticated(uint64_t id) {
  Evictor dropped;  // destroyed after the lock is released, like every evictor
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  if (e.counted) {
    if (!e.evict) return;  // authenticated already, or never evictable
    evictable_.erase(id);
    hosts_.at(e.host).evictable.erase(id);
  } else {
    // Evicted, but the login won the race: the session stays, and counts again.
    e.counted = true;
    ++total_;
    ++hosts_[e.host].count;
  }
  dropped = std::move(e.evict);
  e.evict = nullptr;
}

size_t ConnectionLimiter::active() const {
  std::lock_guard lock(mu_);
  return total_;
}

size_t ConnectionLimiter::activeFor(const std::string& host) const {
  std::lock_guard lock(mu_);
  auto it = hosts_.find(host);
  return it == hosts_.end() ? 0 : it->second.count;
}

}  // namespace darius::net
