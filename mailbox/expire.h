// Expire: phase two of two-phase expunge (docs/design/expunge.md). What an owner's expunged
// messages may cost, and which go when: Hermes's policy, per owner (a user, across all their
// mailboxes; a shared mailbox on its own).
//
// - Anything expunged longer ago than `timeout` goes.
// - If what is left is more than `vol_max`, the oldest go until at most `vol_min` is left
//   (hysteresis: a nightly run does not trim a few bytes every night).
// - `vol_overflow` is when dariusd runs the plan at once instead of waiting for the night
//   (server/expire_scheduler.h). Past it the normal plan applies, which, since vol_overflow >
//   vol_max, brings the owner down to vol_min (Hermes). Should an override set it below
//   vol_max (or vol_min above it), the plan takes min(vol_max, vol_overflow) as the maximum
//   and never keeps more than that, so an at-once run always ends below the overflow.
//
// The same four values exist twice: for expunged messages (expunge_*) and for deleted folders
// (deleted_*). Each owner may override any of the eight (ExpirePolicyOverride, stored in
// expire_policy_db.h); the effective policy is the global one overlaid by the override.
//
// Ownership: plain values and a pure function. Thread-safety: safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace darius::config {
class Config;
}

namespace darius::mailbox {

struct ExpirePolicy {
  uint64_t vol_min = 50ull << 20;
  uint64_t vol_max = 75ull << 20;
  uint64_t vol_overflow = 100ull << 20;  // 0: never at once
  int64_t timeout_seconds = 28 * 86400;

  // expunge_vol_min, expunge_vol_max, expunge_vol_overflow, expunge_timeout.
  static ExpirePolicy fromConfig(const config::Config& config);
  // deleted_vol_min, deleted_vol_max, deleted_vol_overflow, deleted_timeout: the policy for
  // deleted folders.
  static ExpirePolicy deletedFromConfig(const config::Config& config);

  // Whether `held` bytes call for a run at once.
  bool overflows(uint64_t held) const { return vol_overflow != 0 && held > vol_overflow; }
  bool operator==(const ExpirePolicy&) const = default;
};

// An owner's overrides of one policy: each value that is set replaces the global one.
struct ExpirePolicyOverride {
  std::optional<uint64_t> vol_min;
  std::optional<uint64_t> vol_max;
  std::optional<uint64_t> vol_overflow;
  std::optional<int64_t> timeout_seconds;

  bool empty() const { return !vol_min && !vol_max && !vol_overflow && !timeout_seconds; }
  // `base` with this override's values put over it.
  ExpirePolicy over(ExpirePolicy base) const;
  // The values of `other` that are set replace this one's.
  void merge(const ExpirePolicyOverride& other);
  bool operator==(const ExpirePolicyOverride&) const = default;
};

// Everything one owner overrides: the expunged-message policy and the deleted-folder policy.
struct ExpireOverrides {
  ExpirePolicyOverride expunged;
  ExpirePolicyOverride deleted;

  bool empty() const { return expunged.empty() && deleted.empty(); }
  bool operator==(const ExpireOverrides&) const = default;
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
