// The byte layout of a mailbox's cache file `darius.cache` (docs/formats/cache.md), version 1:
// a 32-byte header, then append-only records, each `u32 length, u32 CRC32, payload`. A record
// holds what FETCH needs without opening the message file (ENVELOPE, BODYSTRUCTURE, BODY, the
// cached header fields, the MIME part offsets, the preview), as tagged fields; unknown tags
// are skipped, so a later minor version can add fields.
//
// Ownership: plain values. Thread-safety: pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::mailbox {

inline constexpr std::string_view kCacheMagic = "DARIUSCA";
inline constexpr uint16_t kCacheMajor = 1;
inline constexpr uint16_t kCacheMinor = 0;
inline constexpr uint32_t kCacheHeaderSize = 32;
inline constexpr uint32_t kCacheRecordOverhead = 8;
inline constexpr uint32_t kMaxCacheRecord = 64u << 20;  // a record larger than this is damage

struct CacheEntry {
  std::string envelope;        // IMAP ENVELOPE, as sent
  std::string bodystructure;   // IMAP BODYSTRUCTURE (extensible form)
  std::string body;            // IMAP BODY (non-extensible form)
  std::string headers;         // the header block minus trace fields (Cyrus's "cache most")
  std::string sections;        // the part tree's byte offsets (lib/mime's encoding)
  std::string preview;         // RFC 8970 PREVIEW text, UTF-8

  bool operator==(const CacheEntry&) const = default;
};

std::string encodeCacheHeader(uint64_t generation);
// Returns the generation.
base::Result<uint64_t> decodeCacheHeader(std::string_view bytes);

// The whole record: length, CRC and payload.
// `guid` (the message's 20-byte SHA-1, raw) goes into the record as field 7: it binds the
// record to its message, so that bytes that were never written (zeros, or another file's old
// blocks after a crash) cannot pass for it. Records written before field 7 have none.
std::string encodeCacheRecord(const CacheEntry& e, std::string_view guid = {});
// `bytes` starts at a record and may run to the end of the file; kCorruption names the reason.
// `guid`, when given, receives field 7 (empty if the record has none).
base::Result<CacheEntry> decodeCacheRecord(std::string_view bytes, std::string* guid = nullptr);
// The record at `bytes` as the cache entry of the message whose raw GUID is `guid`: besides
// decoding, kCorruption when field 7 names another message, or when a record without field 7
// is empty. Bytes never written after a crash (zeros decode as an empty record with a valid
// CRC) or another file's old blocks so never pass for the message's entry.
base::Result<CacheEntry> decodeCacheRecordOf(std::string_view bytes, std::string_view guid);

}  // namespace darius::mailbox
