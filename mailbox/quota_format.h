// Quota values and their two on-disk encodings (docs/formats/quota.md, version 1):
//  - a root's limits, the value of its record in `quotas.db` (limits are admin data, durable
//    through the db's commit);
//  - a root's usage record, the file `darius.quota/<sha1 of the root name>`: a cache of the
//    sum over the root's mailboxes of what each index header says (quotaCharge below), kept
//    exact by whoever holds the file's lock, and trusted only when it was written in this boot
//    and no operation was cut short while holding it (quota_usage.h has the protocol).
// Resources are RFC 9208 §5's STORAGE (kept in bytes, shown and limited in KiB), MESSAGE and
// MAILBOX. This file only encodes, decodes and compares.
//
// Ownership: plain values. Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lib/base/result.h"
#include "mailbox/index_format.h"

namespace darius::mailbox {

enum class QuotaResource : uint8_t { kStorage = 0, kMessage = 1, kMailbox = 2 };
inline constexpr size_t kQuotaResourceCount = 3;
inline constexpr QuotaResource kQuotaResources[] = {QuotaResource::kStorage,
                                                    QuotaResource::kMessage,
                                                    QuotaResource::kMailbox};
// "STORAGE", "MESSAGE", "MAILBOX" (RFC 9208 §5).
std::string_view quotaResourceName(QuotaResource r);
// Case-insensitive (RFC 9208 §7); nullopt for any other name.
std::optional<QuotaResource> parseQuotaResource(std::string_view name);

// RFC 9208's resource-limit is a number64 (RFC 9051: at most 2^63-1).
inline constexpr uint64_t kMaxQuotaLimit = (uint64_t{1} << 63) - 1;

// A root's limits; nullopt = not limited. STORAGE in KiB as set (RFC 9208 §5.1: units of
// 1024 octets), so any number64 is a valid limit and comparisons never overflow.
struct QuotaLimits {
  std::array<std::optional<uint64_t>, kQuotaResourceCount> limit{};
  std::optional<uint64_t>& operator[](QuotaResource r) { return limit[static_cast<size_t>(r)]; }
  const std::optional<uint64_t>& operator[](QuotaResource r) const {
    return limit[static_cast<size_t>(r)];
  }
  bool any() const;
  bool operator==(const QuotaLimits&) const = default;
};

// What a root uses: STORAGE in bytes (exact), MESSAGE and MAILBOX counts.
struct QuotaUsage {
  std::array<uint64_t, kQuotaResourceCount> value{};
  uint64_t& operator[](QuotaResource r) { return value[static_cast<size_t>(r)]; }
  uint64_t operator[](QuotaResource r) const { return value[static_cast<size_t>(r)]; }
  QuotaUsage& operator+=(const QuotaUsage& o);
  // Saturates at 0: a record that disagrees with the store is never made to wrap.
  QuotaUsage& operator-=(const QuotaUsage& o);
  bool operator==(const QuotaUsage&) const = default;
};
QuotaUsage operator+(QuotaUsage a, const QuotaUsage& b);
QuotaUsage operator-(QuotaUsage a, const QuotaUsage& b);

// The one definition of what a mailbox charges to its root: its live messages (the index's
// quota_used and live count, so expunged records — and the future expunged area of issue 18,
// which only ever holds expunged records — never count) and itself. Recount and every delta
// are computed from this, so changing what counts means changing only this function.
QuotaUsage quotaCharge(const IndexHeader& h);

// The usage as RFC 9208 reports it: STORAGE in KiB, rounded up (a byte used is never shown
// as free), MESSAGE and MAILBOX as they are.
uint64_t reportedUsage(const QuotaUsage& u, QuotaResource r);

// The first resource, in kQuotaResources order, that `add` would take over its limit when
// `now` is in use; nullopt when everything fits. A resource `add` does not increase never
// fails, so a root already over a lowered limit may still expunge, delete and move out.
// Reaching a limit exactly is allowed (usage <= limit).
std::optional<QuotaResource> wouldExceed(const QuotaLimits& limits, const QuotaUsage& now,
                                         const QuotaUsage& add);
// The percentage of its limit a resource uses (rounded down; for quota_warn_percent).
uint64_t usedPercent(const QuotaLimits& limits, const QuotaUsage& now, QuotaResource r);

// --- quotas.db values, version 1.0 (27 bytes) ---
inline constexpr uint8_t kQuotaLimitsMajor = 1;
inline constexpr uint8_t kQuotaLimitsMinor = 0;
std::string encodeQuotaLimits(const QuotaLimits& limits);
// kCorruption naming `key_for_errors` for anything a writer could not have produced; a newer
// major is kNotSupported.
base::Result<QuotaLimits> decodeQuotaLimits(std::string_view value, std::string_view key_for_errors);

// --- usage records, version 1.0 ---
inline constexpr std::string_view kQuotaUsageMagic = "DARIUSQU";
inline constexpr uint16_t kQuotaUsageMajor = 1;
inline constexpr uint16_t kQuotaUsageMinor = 0;
// The fixed part, rewritten in place by every update (one pwrite inside one sector); the
// root's name follows it, written once when the file is made.
inline constexpr size_t kQuotaUsageFixedSize = 64;
using BootId = std::array<uint8_t, 16>;

struct QuotaUsageRecord {
  bool pending = false;  // an operation holding the lock had begun and had not finished
  BootId boot{};         // the boot the record was written in
  QuotaUsage usage;
  std::string root;      // the root's printable name (MailboxName::toString())
  bool operator==(const QuotaUsageRecord&) const = default;
};

// The whole file: the fixed part, then the name. The CRC covers both.
std::string encodeQuotaUsageRecord(const QuotaUsageRecord& r);
// kCorruption (what is wrong) for a short, damaged or foreign file; kNotSupported for a newer
// major. A reader treats either as "not trusted" and recounts.
base::Result<QuotaUsageRecord> decodeQuotaUsageRecord(std::string_view bytes);

}  // namespace darius::mailbox
