#include "lib/net/connection_limiter.h"

namespace darius::net {

ConnectionLimiter::Ticket& ConnectionLimiter::Ticket::operator=(Ticket&& o) noexcept {
  if (this != &o) {
    release();
    owner_ = o.owner_;
    host_ = std::move(o.host_);
    o.owner_ = nullptr;
  }
  return *this;
}

void ConnectionLimiter::Ticket::release() {
  if (owner_) owner_->release(host_);
  owner_ = nullptr;
}

std::optional<ConnectionLimiter::Ticket> ConnectionLimiter::tryAcquire(const std::string& host) {
  std::lock_guard lock(mu_);
  if (total_ >= max_total_) return std::nullopt;
  size_t& n = per_host_[host];
  if (n >= max_per_host_) {
    if (n == 0) per_host_.erase(host);
    return std::nullopt;
  }
  ++n;
  ++total_;
  return Ticket(this, host);
}

void ConnectionLimiter::release(const std::string& host) {
  std::lock_guard lock(mu_);
  --total_;
  auto it = per_host_.find(host);
  if (it != per_host_.end() && --it->second == 0) per_host_.erase(it);
}

size_t ConnectionLimiter::active() const {
  std::lock_guard lock(mu_);
  return total_;
}

size_t ConnectionLimiter::activeFor(const std::string& host) const {
  std::lock_guard lock(mu_);
  auto it = per_host_.find(host);
  return it == per_host_.end() ? 0 : it->second;
}

}  // namespace darius::net
