// Expire: phase two of two-phase expunge (docs/design/expunge.md). What an owner's expunged
// messages may cost, and which go when: Hermes's policy, per owner (a user, across all their
// mailboxes; a shared mailbox on its own).
//
// - Anything expunged longer ago than `timeout` goes.
// - If what is left is more than `vol_max`, the oldest go until at most `vol_min` is left
//   (hysteresis: a nightly run does not trim a few bytes every night).
//
// Ownership: plain values and a pure function. Thread-safety: safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace darius::config {
class Config;
}

namespace darius::mailbox {

struct ExpirePolicy {
  uint64_t vol_min = 50ull << 20;
  uint64_t vol_max = 75ull << 20;
  int64_t timeout_seconds = 28 * 86400;

  // expunge_vol_min, expunge_vol_max, expunge_timeout.
  static ExpirePolicy fromConfig(const config::Config& config);
};

// One expunged message an owner holds. `expunged_at` 0 (expunged before index 1.2 kept the
// time): its age is unknown, so the timeout never takes it; it goes first when the volume
// must come down.
struct HeldMessage {
  size_t mailbox = 0;  // the caller's index of the mailbox
  uint32_t uid = 0;
  uint64_t size = 0;
  int64_t expunged_at = 0;
};

// Positions in `held` of the messages to remove at `now`, ascending. `everything`: all of them
// (`darius expire --now`).
std::vector<size_t> planExpire(std::span<const HeldMessage> held, const ExpirePolicy& policy,
                               int64_t now, bool everything = false);

}  // namespace darius::mailbox
