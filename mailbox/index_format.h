// The byte layout of a mailbox's index file `darius.index` (docs/formats/index.md), version 1:
// a 128-byte header and fixed 128-byte records, all integers little-endian, each with a CRC32.
// This file only encodes and decodes; index_file.h does the I/O and the locking.
//
// Ownership: plain values. Thread-safety: pure functions, safe from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::mailbox {

inline constexpr std::string_view kIndexMagic = "DARIUSIX";  // 8 bytes
inline constexpr uint16_t kIndexMajor = 1;
// 1.1 gave meaning to the reserved header bytes 100–103 (recent_uid), 1.2 to header bytes
// 104–111 (purged_modseq) and record bytes 104–111 (expunged_at); older files read them as 0.
inline constexpr uint16_t kIndexMinor = 2;
inline constexpr uint32_t kIndexHeaderSize = 128;
// 128 so that no record straddles a 512-byte sector: an in-place flag update is one sector
// write (docs/formats/index.md, "Crash safety").
inline constexpr uint32_t kIndexRecordSize = 128;
inline constexpr int kMaxUserFlags = 128;

// System flags (RFC 9051 §2.3.2), one bit each in IndexRecord::system_flags. kExpunged marks a
// record expunged in place (phase 1) until the next rewrite moves it to the expunged file.
enum SystemFlag : uint32_t {
  kFlagSeen = 1u << 0,
  kFlagAnswered = 1u << 1,
  kFlagFlagged = 1u << 2,
  kFlagDeleted = 1u << 3,
  kFlagDraft = 1u << 4,
  kFlagExpunged = 1u << 31,
};
inline constexpr uint32_t kKnownFlagBits =
    kFlagSeen | kFlagAnswered | kFlagFlagged | kFlagDeleted | kFlagDraft | kFlagExpunged;

using Guid = std::array<uint8_t, 20>;  // SHA-1 of the message file's bytes
// The GUID's 20 raw bytes, as the cache record's field 7 holds them (cache_format.h).
inline std::string_view guidBytes(const Guid& g) {
  return {reinterpret_cast<const char*>(g.data()), g.size()};
}
using UserFlags = std::array<uint64_t, 2>;  // bit i = user flag i of the header file

struct IndexHeader {
  uint16_t major = kIndexMajor;
  uint16_t minor = kIndexMinor;
  uint64_t generation = 1;     // bumped by each rewrite; readers reopen when it changes
  uint32_t num_records = 0;    // committed records (expunged-in-place ones included)
  uint32_t num_expunged = 0;   // of those, marked kFlagExpunged
  uint32_t uidvalidity = 0;
  uint32_t uidnext = 1;
  uint64_t highest_modseq = 1;
  uint64_t quota_used = 0;     // bytes of the live (not expunged) messages
  uint32_t num_deleted = 0;    // live records with \Deleted
  uint32_t num_seen = 0;       // live records with \Seen
  uint32_t num_answered = 0;
  uint32_t num_flagged = 0;
  int64_t last_append_date = 0;
  uint64_t cache_generation = 0;  // must equal the cache file's; else cache offsets are void
  // The last append: records [prev_num_records, num_records) and the CRC32 of their bytes.
  // Lets an append commit with one fsync: a header that reached the disk without its records
  // is detected on open and the append is rolled back (docs/formats/index.md).
  uint32_t prev_num_records = 0;
  uint32_t tail_crc = 0;
  // IMAP4rev1 \Recent (RFC 3501 §2.3.2): the highest UID some session has already been shown
  // as recent; UIDs above it are recent to the next session that selects (not examines).
  uint32_t recent_uid = 0;
  // (1.2) The highest modseq of an expunged record whose message expire removed for good
  // (mailbox/expire.h): the mailbox no longer knows which UIDs left at or below it, so a
  // QRESYNC from an older modseq is told every UID it names that is not live has vanished
  // (RFC 7162 §5.1 and §5.3 allow the larger answer).
  uint64_t purged_modseq = 0;

  bool operator==(const IndexHeader&) const = default;
};

struct IndexRecord {
  uint32_t uid = 0;
  uint32_t system_flags = 0;
  int64_t internal_date = 0;   // seconds since the epoch
  int64_t save_date = 0;       // seconds since the epoch (RFC 8514 SAVEDATE)
  uint64_t size = 0;           // bytes of the message file (RFC822.SIZE)
  uint64_t modseq = 0;
  uint64_t cache_offset = 0;   // 0 = no cache record
  uint32_t header_size = 0;    // bytes of the header block, blank line included
  int16_t tz_offset_minutes = 0;  // INTERNALDATE's zone
  UserFlags user_flags{};
  Guid guid{};
  uint64_t thread_id = 0;      // THREADID (RFC 8474); 0 until threading assigns one
  // (1.2) With kFlagExpunged: when the expunge happened, seconds since the epoch (expire's
  // clock, mailbox/expire.h). 0 in records expunged by older versions: an unknown age, which
  // expire's timeout never takes (its volume limits do).
  int64_t expunged_at = 0;

  bool live() const { return (system_flags & kFlagExpunged) == 0; }
  bool hasUserFlag(int i) const { return (user_flags[i / 64] >> (i % 64)) & 1; }
  void setUserFlag(int i, bool on) {
    uint64_t bit = uint64_t{1} << (i % 64);
    user_flags[i / 64] = on ? (user_flags[i / 64] | bit) : (user_flags[i / 64] & ~bit);
  }
  bool operator==(const IndexRecord&) const = default;
};

// Encoded forms are exactly kIndexHeaderSize / kIndexRecordSize bytes, CRC included.
std::string encodeIndexHeader(const IndexHeader& h);
std::string encodeIndexRecord(const IndexRecord& r);

// Decoding checks magic, version, sizes and the CRC; errors are kCorruption and say what.
base::Result<IndexHeader> decodeIndexHeader(std::string_view bytes);
base::Result<IndexRecord> decodeIndexRecord(std::string_view bytes);
// The uid field of a record, unchecked (no CRC): for the probes of a binary search, whose
// hit is then decoded with decodeIndexRecord. `bytes` holds at least kIndexRecordSize bytes.
uint32_t peekRecordUid(std::string_view bytes);

// Adds (sign +1) or removes (-1) a live record's contribution to the header's counts.
void accountRecord(IndexHeader& h, const IndexRecord& r, int sign);

uint32_t crc32Of(std::string_view bytes);

}  // namespace darius::mailbox
