// SeenState: one user's \Seen of one mailbox they do not own (issue 17, Cyrus's seen.db
// record): the UIDs the user has seen, and the modseq of the user's last \Seen change of each
// UID, so that CONDSTORE and QRESYNC (RFC 7162 §3.1) report that change to this user alone.
// seen_db.h keeps one per (user, mailbox) in seen.db; this file is the value and its
// encoding (docs/formats/seen.md, version 1).
//
// A message's metadata as the user sees it is the index record with \Seen taken from here
// and the modseq max(record modseq, modseqOf(uid)) (RFC 7162 §1: a message's mod-sequence is
// the highest of its metadata items' the user can see). Per-UID modseqs are kept as runs of
// UIDs sharing one modseq, at most SeenLimits::max_modseq_runs of them: past that, adjacent
// runs are merged, each merged run taking the higher modseq of the two. That only raises
// modseqs, so a message's modseq in the user's view never goes down, and a client asking
// CHANGEDSINCE may be told of a message whose \Seen did not change (harmless, RFC 7162 §3.1.4
// allows unchanged metadata in a FETCH), never the other way round.
//
// Hostile values from disk: decode() checks the size limit first, then the grammar strictly
// (canonical only: ascending, disjoint, no leading zeros, numbers in range); anything else is
// kCorruption saying what, never a crash. Decoding is O(value size).
//
// Ownership: a value type. Thread-safety: const methods may be called from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "mailbox/index_format.h"

namespace darius::mailbox {

inline constexpr uint64_t kMaxSeenModseq = (uint64_t{1} << 63) - 1;  // RFC 7162: 63 bits

struct SeenLimits {
  // Longest encoded value read or written (`seen_max_size`). Alternate seen and unseen
  // messages cost about 12 bytes per pair, so the default covers 350,000 such messages.
  size_t max_value_bytes = 4u << 20;
  // Runs of per-UID modseqs kept before neighbours are merged (`seen_modseq_runs`).
  size_t max_modseq_runs = 512;
};

// An inclusive UID range, first <= last.
struct UidRange {
  uint32_t first = 0;
  uint32_t last = 0;
  bool operator==(const UidRange&) const = default;
};

// UIDs first..last last changed at `modseq`.
struct ModseqRun {
  uint32_t first = 0;
  uint32_t last = 0;
  uint64_t modseq = 0;
  bool operator==(const ModseqRun&) const = default;
};

class SeenState {
 public:
  SeenState() = default;

  static base::Result<SeenState> decode(std::string_view value, const SeenLimits& limits);
  std::string encode() const;

  bool empty() const { return seen_.empty() && runs_.empty(); }
  bool isSeen(uint32_t uid) const;
  // The modseq of the user's last \Seen change of `uid`; 0 when none is recorded.
  uint64_t modseqOf(uint32_t uid) const;
  // The highest modseq recorded (0: none).
  uint64_t highestModseq() const;
  int64_t lastChange() const { return last_change_; }

  // Makes `uids` (ascending) seen or not; returns those whose state changed, ascending.
  // O(ranges + uids).
  std::vector<uint32_t> setSeen(std::span<const uint32_t> uids, bool seen);
  // Records that `uids` (ascending) changed at `modseq`, which is above every modseq recorded,
  // then merges runs down to `max_runs` (at least 1).
  void noteChange(std::span<const uint32_t> uids, uint64_t modseq, size_t max_runs);
  void setLastChange(int64_t seconds) { last_change_ = seconds; }

  // The index record as this user sees it: \Seen from here, modseq as described above.
  void apply(IndexRecord& r) const;
  // How many of `uids` (ascending) are seen.
  size_t countSeen(std::span<const uint32_t> uids) const;

  const std::vector<UidRange>& seen() const { return seen_; }
  const std::vector<ModseqRun>& runs() const { return runs_; }

  // For tests and tools: builds a state from parts (kInvalid unless canonical, as decode()).
  static base::Result<SeenState> fromParts(int64_t last_change, std::vector<UidRange> seen,
                                           std::vector<ModseqRun> runs);

  bool operator==(const SeenState&) const = default;

 private:
  base::Status check() const;  // canonical form, as the format requires

  int64_t last_change_ = 0;      // seconds since the epoch of the last write
  std::vector<UidRange> seen_;   // ascending, disjoint, never adjacent
  std::vector<ModseqRun> runs_;  // ascending, disjoint; adjacent runs differ in modseq
};

}  // namespace darius::mailbox
