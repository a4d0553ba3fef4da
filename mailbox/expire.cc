#include "mailbox/expire.h"

#include <algorithm>
#include <numeric>

#include "lib/config/config.h"

namespace darius::mailbox {

ExpirePolicy ExpirePolicy::fromConfig(const config::Config& config) {
  ExpirePolicy p;
  p.vol_min = config.getSize("expunge_vol_min");
  p.vol_max = config.getSize("expunge_vol_max");
  p.vol_overflow = config.getSize("expunge_vol_overflow");
  p.timeout_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(config.getDuration("expunge_timeout"))
          .count();
  return p;
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
  std::vector<size_t> out;
  size_t i = 0;
  // "Hold at most this long": an age of exactly the timeout is still held.
  for (; i < order.size() && now - held[order[i]].expunged_at > policy.timeout_seconds; ++i) {
    out.push_back(order[i]);
    total -= held[order[i]].size;
  }
  if (total > policy.vol_max) {
    for (; i < order.size() && total > policy.vol_min; ++i) {
      out.push_back(order[i]);
      total -= held[order[i]].size;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace darius::mailbox
