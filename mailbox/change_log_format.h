// The byte layout of the change log (docs/formats/changelog.md), version 1.0: segment files
// that open with a 32-byte header and hold length-prefixed, CRC-checked records. This file
// only encodes and decodes bytes; change_log.h does the I/O, the locking and the recovery.
//
// Ownership: plain values. Thread-safety: pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/base/status.h"

namespace darius::mailbox {

inline constexpr std::string_view kChangeLogMagic = "DRSCHLOG";  // 8 bytes
inline constexpr uint16_t kChangeLogMajor = 1;
// 1.1 added the purge record type (readers of 1.0 pass over it, as over any unknown type).
inline constexpr uint16_t kChangeLogMinor = 1;
inline constexpr uint32_t kSegmentHeaderSize = 32;
// A reader accepts a larger header_size (a newer minor version may add fields) up to this.
inline constexpr uint32_t kMaxSegmentHeaderSize = 4096;
// A record is u32 body length, u32 CRC, then the body.
inline constexpr uint32_t kRecordFrameSize = 8;
// seq (8) + time (8) + type (2) + mailbox id length (2): no valid body is shorter, so a run
// of zero bytes (what some filesystems leave after a crash) never reads as a record.
inline constexpr uint32_t kMinRecordBody = 20;
// The largest body a writer produces and a reader accepts; a bigger change is split by the
// caller (an expunge of ~87,000 UIDs fits in one record). append() gives kTooBig beyond it.
inline constexpr uint32_t kMaxRecordBody = 1u << 20;

// What changed. The values are part of the format; new types may be added by a minor version,
// and readers must pass over types they do not know (ChangeRecord::raw_payload keeps them).
enum class ChangeType : uint16_t {
  kAppend = 1,   // messages appended: uids (UID, modseq)
  kFlags = 2,    // flags changed: uids (UID, new modseq)
  kExpunge = 3,  // messages expunged (phase 1): uids (UID, modseq of the expunge)
  kCreate = 4,   // mailbox created: name
  kRename = 5,   // mailbox renamed: old_name -> name
  kDelete = 6,   // mailbox deleted (moved to the deleted area): name
  kAcl = 7,      // ACL entry set or removed: identifier, rights ("" = removed)
  kQuota = 8,    // quota root limits changed: quota_root, limits
  kPurge = 9,    // (1.1) expunged messages removed for good (phase 2): uids (UID, expunge modseq)
};

// The name of a type for logs and tools ("append"), or "type-<n>" for an unknown one.
std::string changeTypeName(ChangeType type);
bool isKnownChangeType(ChangeType type);

struct UidModseq {
  uint32_t uid = 0;
  uint64_t modseq = 0;
  bool operator==(const UidModseq&) const = default;
};

struct QuotaLimit {
  std::string resource;  // RFC 9208 resource name: "STORAGE", "MESSAGE", ...
  int64_t limit = -1;    // -1: no limit (the resource was removed from the root)
  bool operator==(const QuotaLimit&) const = default;
};

// One change. Which fields are meaningful depends on `type` (see ChangeType); the others stay
// empty and are not written.
struct ChangeRecord {
  uint64_t seq = 0;       // assigned by ChangeLog::append(); ignored on input
  int64_t time_usec = 0;  // microseconds since the epoch; 0 on input means "now"
  ChangeType type = ChangeType::kAppend;
  std::string mailbox_id;          // the mailbox's unique id (not its name, which RENAME changes)
  std::vector<UidModseq> uids;     // kAppend, kFlags, kExpunge
  std::string name;                // kCreate, kDelete: the name; kRename: the new name
  std::string old_name;            // kRename
  std::string identifier;          // kAcl
  std::string rights;              // kAcl
  std::string quota_root;          // kQuota
  std::vector<QuotaLimit> limits;  // kQuota
  std::string raw_payload;         // an unknown type: its payload bytes, kept and rewritten as is

  bool operator==(const ChangeRecord&) const = default;
};

struct SegmentHeader {
  uint16_t major = kChangeLogMajor;
  uint16_t minor = kChangeLogMinor;
  uint32_t header_size = kSegmentHeaderSize;
  uint64_t first_seq = 0;  // the sequence number of the segment's first record
};

std::string encodeSegmentHeader(uint64_t first_seq, uint16_t minor = kChangeLogMinor);

// Decoding a header or a record frame has three outcomes: whole and valid; incomplete (the
// bytes end too early: a write in progress or torn by a crash); bad (complete but wrong).
enum class DecodeState { kValid, kIncomplete, kBad };

struct HeaderDecode {
  DecodeState state = DecodeState::kBad;
  SegmentHeader header;
  std::string error;         // for kBad
  bool unsupported = false;  // kBad because of a major version this code does not know
};
// `in` holds the file from offset 0 (it may be longer than the header).
HeaderDecode decodeSegmentHeader(std::string_view in);

struct FrameDecode {
  DecodeState state = DecodeState::kBad;
  size_t size = 0;        // whole frame bytes (kValid; for kBad, when the length is plausible)
  uint64_t seq = 0;       // kValid
  std::string_view body;  // kValid: points into the input
  std::string error;      // kBad
};
// Checks the frame at the start of `in`: length bounds and CRC. Does not parse the body.
FrameDecode decodeFrame(std::string_view in);

// Encodes `record` as a whole frame with seq 0 and no CRC yet (finishFrame() fills both), so
// that callers can encode outside the log's lock. kTooBig if the body would exceed
// kMaxRecordBody or a string exceeds 65535 bytes; kInvalid for a known type with fields of
// another type set.
base::Result<std::string> encodeFrame(const ChangeRecord& record);
// Sets the sequence number and the CRC of a frame made by encodeFrame().
void finishFrame(std::string& frame, uint64_t seq);
// Parses a body that decodeFrame() found valid. kCorruption if malformed.
base::Result<ChangeRecord> decodeBody(std::string_view body);

}  // namespace darius::mailbox
