#include "mailbox/expire.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "lib/config/config.h"

namespace darius::mailbox {

namespace {

ExpirePolicy policyFrom(const config::Config& config, const std::string& prefix) {
  ExpirePolicy p;
  p.vol_min = config.getSize(prefix + "_vol_min");
  p.vol_max = config.getSize(prefix + "_vol_max");
  p.vol_overflow = config.getSize(prefix + "_vol_overflow");
  p.timeout_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(config.getDuration(prefix + "_timeout"))
          .count();
  return p;
}

}  // namespace

ExpirePolicy ExpirePolicy::fromConfig(const config::Config& config) {
  return policyFrom(config, "expunge");
}

ExpirePolicy ExpirePolicy::deletedFromConfig(const config::Config& config) {
  return policyFrom(config, "deleted");
}

ExpirePolicy ExpirePolicyOverride::over(ExpirePolicy base) const {
  if (vol_min) base.vol_min = *vol_min;
  if (vol_max) base.vol_max = *vol_max;
  if (vol_overflow) base.vol_overflow = *vol_overflow;
  if (timeout_seconds) base.timeout_seconds = *timeout_seconds;
  return base;
}

void ExpirePolicyOverride::merge(const ExpirePolicyOverride& other) {
  if (other.vol_min) vol_min = other.vol_min;
  if (other.vol_max) vol_max = other.vol_max;
  if (other.vol_overflow) vol_overflow = other.vol_overflow;
  if (other.timeout_seconds) timeout_seconds = other.timeout_seconds;
}

std::vector<size_t> planExpire(std::span<const HeldMessage> held, const ExpirePolicy& policy,
                               int64_t now, bool everything) {
  std::vector<size_t> order(held.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (everything) return order;
  // Oldest first; ties in a stable order so that a dry run and the run agree.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const HeldMessage& x = held[a];
    const HeldMessage& y = held[b];
    if (x.expunged_at != y.expunged_at) return x.expunged_at < y.expunged_at;
    if (x.mailbox != y.mailbox) return x.mailbox < y.mailbox;
    return x.uid < y.uid;
  });
  uint64_t total = 0;
  for (const HeldMessage& m : held) total += m.size;
  std::vector<bool> gone(held.size(), false);
  // "Hold at most this long": an age of exactly the timeout is still held; an unknown age
  // (0) is never past it.
  for (size_t i : order) {
    const HeldMessage& m = held[i];
    if (m.expunged_at != 0 && now - m.expunged_at > policy.timeout_seconds) {
      gone[i] = true;
      total -= m.size;
    }
  }
  // vol_overflow is a cap too: "past it, expire at once" must mean the run takes the owner
  // below it, even when an override sets it under vol_max (or vol_min over it); else the
  // at-once run would remove nothing and the next expunge would ask for it again.
  uint64_t max = policy.vol_max;
  if (policy.vol_overflow != 0) max = std::min(max, policy.vol_overflow);
  const uint64_t min = std::min(policy.vol_min, max);
  if (total > max) {
    for (size_t k = 0; k < order.size() && total > min; ++k) {
      if (gone[order[k]]) continue;
      gone[order[k]] = true;
      total -= held[order[k]].size;
    }
  }
  std::vector<size_t> out;
  for (size_t i = 0; i < held.size(); ++i) {
    if (gone[i]) out.push_back(i);
  }
  return out;
}

}  // namespace darius::mailbox
