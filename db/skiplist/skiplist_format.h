// skiplist_format: the on-disk layout of a skiplist database (docs/formats/skiplist.md is the
// specification; this header must agree with it). Pure functions over byte buffers: encoding,
// decoding and validating the header and records, CRC32C, and the checked slot encoding.
//
// Ownership: nothing is owned; views point into the caller's buffer (usually a mapping).
// Thread-safety: all functions are pure; slot loads are atomic 8-byte loads because another
// process may be rewriting a slot while we read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::db::skiplist {

inline constexpr char kMagic[8] = {'D', 'A', 'R', 'S', 'K', 'I', 'P', '\n'};
inline constexpr uint16_t kMajorVersion = 1;
inline constexpr uint16_t kMinorVersion = 0;
inline constexpr uint32_t kHeaderSize = 64;
inline constexpr int kMaxLevel = 24;
inline constexpr uint64_t kFlagSuperseded = 1;  // a repack renamed a newer file over this one

enum RecordType : uint8_t { kHead = 1, kAdd = 2, kDelete = 3, kCommit = 4 };

// The file header, little-endian, at offset 0. Rewritten in place (unsynced) after a commit.
struct FileHeader {
  char magic[8];
  uint16_t major;
  uint16_t minor;
  uint32_t header_size;
  uint64_t generation;      // +1 by every repack
  uint64_t committed_end;   // end of the last applied commit record
  uint64_t live_count;      // live keys
  uint64_t commit_count;    // commits since the last repack
  uint64_t flags;           // kFlagSuperseded
  uint32_t reserved;
  uint32_t crc;             // CRC32C of bytes [0, 60)
};
static_assert(sizeof(FileHeader) == kHeaderSize);
static_assert(offsetof(FileHeader, generation) == 16);
static_assert(offsetof(FileHeader, committed_end) == 24);
static_assert(offsetof(FileHeader, flags) == 48);
static_assert(offsetof(FileHeader, crc) == 60);

// Every record starts with this, 8-byte aligned; then 2*level slots (u64), key, value, zero
// padding to a multiple of 8.
struct RecordHeader {
  uint32_t crc;        // CRC32C of (offset as u64, bytes [4,16), key, value); slots excluded
  uint8_t type;        // RecordType
  uint8_t level;       // 1..kMaxLevel for kHead/kAdd/kDelete, 0 for kCommit
  uint16_t reserved;
  uint32_t key_len;
  uint32_t value_len;  // for kCommit: 16 (CommitBody)
};
static_assert(sizeof(RecordHeader) == 16);
static_assert(offsetof(RecordHeader, key_len) == 8);

struct CommitBody {
  uint64_t txn_start;  // offset of the transaction's first record
  uint32_t records;    // records in the transaction
  uint32_t chain_crc;  // CRC32C over the records' crc fields in order
};
static_assert(sizeof(CommitBody) == 16);

inline constexpr uint64_t kHeadOffset = kHeaderSize;
inline constexpr uint64_t kHeadSize = sizeof(RecordHeader) + 16 * kMaxLevel;
inline constexpr uint64_t kFirstRecord = kHeadOffset + kHeadSize;

uint32_t crc32c(uint32_t crc, const void* data, size_t n);

inline uint64_t pad8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }
inline uint64_t recordSize(int level, uint64_t key_len, uint64_t value_len) {
  return pad8(sizeof(RecordHeader) + 16 * uint64_t(level) + key_len + value_len);
}

// A slot holds a 48-bit offset and a 16-bit check of it, so that a torn 8-byte read (pwrite
// is not guaranteed atomic against a concurrent mmap reader) is recognised, not followed.
inline uint64_t slotCheck(uint64_t off) { return (off * 0x9E3779B97F4A7C15ull) >> 48; }
inline uint64_t encodeSlot(uint64_t off) { return off | (slotCheck(off) << 48); }
inline bool decodeSlot(uint64_t raw, uint64_t* off) {
  *off = raw & 0xFFFFFFFFFFFFull;
  return (raw >> 48) == slotCheck(*off);
}

std::string encodeHeader(const FileHeader& h);  // fills magic/version/size/crc
// Validates magic, version and CRC: kInvalid for another format or major version,
// kCorruption (offset 0) for a bad CRC or impossible fields.
base::Result<FileHeader> decodeHeader(std::string_view file);

struct Record {
  uint64_t offset = 0;
  uint8_t type = 0;
  int level = 0;
  uint64_t size = 0;  // total, padded
  uint32_t crc = 0;
  const char* slots = nullptr;  // 2*level u64 (use loadSlot)
  std::string_view key, value;
};

// Parses the record at `offset` within file[0, end): bounds and fields; with `verify_crc`
// the CRC too. kCorruption names the offset.
base::Result<Record> parseRecord(std::string_view file, uint64_t end, uint64_t offset,
                                 bool verify_crc);
bool recordCrcOk(const Record& r);

// Serialises a record; `slots` has 2*level raw (already encoded) values or is null (zeros).
std::string encodeRecord(uint64_t offset, uint8_t type, int level, const uint64_t* slots,
                         std::string_view key, std::string_view value);
std::string encodeCommit(uint64_t offset, const CommitBody& body);

// " at offset N": the tail of every kCorruption message about a place in the file.
std::string atOffset(uint64_t off);

inline uint64_t loadSlot(const char* slots, int index) {
  return __atomic_load_n(reinterpret_cast<const uint64_t*>(slots) + index, __ATOMIC_ACQUIRE);
}

}  // namespace darius::db::skiplist
