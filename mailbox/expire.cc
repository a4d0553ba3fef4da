#include "mailbox/expire.h"

#include <algorithm>
#include <numeric>

#include "lib/config/config.h"

namespace darius::mailbox {

ExpirePolicy ExpirePolicy::fromConfig(const config::Config& config) {
  ExpirePolicy p;
  p.vol_min = config.getSize("expunge_vol_min");
  p.vol_max = config.getSize("expunge_vol_max");
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
  if (total > policy.vol_max) {
    for (size_t k = 0; k < order.size() && total > policy.vol_min; ++k) {
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
