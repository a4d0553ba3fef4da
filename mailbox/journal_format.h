// The byte layout of a partition's delivery journal (docs/formats/journal.md), version 1.0:
// segment files that open with a 32-byte header and hold length-prefixed, CRC-checked
// records. A message record carries a delivered message's bytes; an append record carries the
// index records an append wrote to one mailbox and, for each, where in the same segment its
// bytes are. This file only encodes and decodes; delivery_journal.h does the I/O, the group
// commit and the checkpoints, and journal_recovery.cc the replay.
//
// Ownership: plain values; decoded records view the caller's bytes. Thread-safety: pure
// functions, safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "mailbox/index_format.h"

namespace darius::mailbox {

inline constexpr std::string_view kJournalMagic = "DRSJRNAL";  // 8 bytes
inline constexpr uint16_t kJournalMajor = 1;
inline constexpr uint16_t kJournalMinor = 0;
inline constexpr uint32_t kJournalHeaderSize = 32;
// A record is u32 body length, u32 CRC, then the body (its first byte the type).
inline constexpr uint32_t kJournalFrameSize = 8;
// The largest body a reader accepts: a message record of the largest message a protocol
// takes (max_message_size's own ceiling) with room to spare.
inline constexpr uint32_t kMaxJournalBody = 1u << 30;

enum class JournalRecordType : uint8_t {
  kMessage = 1,  // a message's bytes, written once for all its recipients
  kAppend = 2,   // index records appended to one mailbox, each naming its message record
};

// Where a message's bytes are in a journal: the segment and the message record's frame offset.
struct JournalRef {
  uint64_t segment = 0;
  uint64_t offset = 0;
};

struct JournalSegmentHeader {
  uint16_t major = kJournalMajor;
  uint16_t minor = kJournalMinor;
  uint64_t segment = 0;  // the file's number, also in its name and in every record's CRC
};

struct JournalMessage {
  Guid guid{};
  std::string_view bytes;  // views the segment
};

struct JournalAppendEntry {
  IndexRecord record;         // as the append wrote it (flags at the time of the append)
  uint64_t message_offset = 0;  // the message record's frame offset in this segment
};

struct JournalAppend {
  std::string mailbox_dir;  // relative to the partition root
  std::string unique_id;    // the mailbox's (header_file.h); a re-created name has another
  uint32_t uidvalidity = 0;
  uint64_t generation = 0;      // the index file's generation the records were written to
  uint32_t first_position = 0;  // record number of the first entry in that index file
  std::vector<JournalAppendEntry> entries;
};

std::string encodeJournalSegmentHeader(const JournalSegmentHeader& h);
base::Result<JournalSegmentHeader> decodeJournalSegmentHeader(std::string_view bytes);

// A whole framed record, ready to be written at the segment's end.
std::string encodeJournalMessage(uint64_t segment, const Guid& guid, std::string_view bytes);
base::Result<std::string> encodeJournalAppend(uint64_t segment, const JournalAppend& a);

// One record read from a segment. kNotFound: the segment ends cleanly at `offset` (end of
// the bytes, or only zeros from there). kCorruption: the frame at `offset` does not check
// (a torn last write, or damage): nothing after it is trusted.
struct JournalFrame {
  JournalRecordType type{};
  std::string_view body;  // after the type byte
  uint64_t next = 0;      // offset of the following frame
};
base::Result<JournalFrame> readJournalFrame(std::string_view segment_bytes, uint64_t segment,
                                            uint64_t offset);

base::Result<JournalMessage> decodeJournalMessage(std::string_view body);
base::Result<JournalAppend> decodeJournalAppend(std::string_view body);

// "0000000000000001.journal"; parses back (false if the name is not a segment's).
std::string journalSegmentName(uint64_t segment);
bool parseJournalSegmentName(std::string_view name, uint64_t* segment);

}  // namespace darius::mailbox
