// The expunged index `darius.expunged` and its cache `darius.expunged.cache`
// (docs/formats/expunged.md): where a mailbox keeps the records of expunged messages, with their
// flags, modseqs, expunge times and cache records, until expire (mailbox/expire.h) removes the
// message files for good. Hermes's expunge.index / expunge.cache.
//
// The index is a 16-byte header and index records (index_format.h) in the order they left the
// live index; it only grows, except when expire rewrites it. The cache is a cache file
// (cache_format.h) of its own, append-only too; a record's cache_offset points into it.
//
// Ownership: plain values and free functions over an Env. Thread-safety: the functions are safe
// from any thread; writers (compact, reconstruct, purge) hold the mailbox's exclusive lock,
// readers take none (a torn tail of an append is ignored, as the records are still in the
// live index that the append came from).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/io/env.h"
#include "mailbox/index_format.h"

namespace darius::mailbox {

inline constexpr std::string_view kExpungedFileName = "darius.expunged";
inline constexpr std::string_view kExpungedCacheFileName = "darius.expunged.cache";
inline constexpr std::string_view kExpungedMagic = "DARIUSEX";
inline constexpr uint16_t kExpungedMajor = 1;
// 1.1: records' cache_offset points into darius.expunged.cache and expunged_at is set; in 1.0
// files cache_offset pointed into the live cache of the time and is ignored.
inline constexpr uint16_t kExpungedMinor = 1;
inline constexpr size_t kExpungedHeaderSize = 16;

std::string expungedFileHeader(uint16_t minor = kExpungedMinor);

struct ExpungedIndex {
  uint16_t minor = kExpungedMinor;
  // Bytes of whole records read (header included): where a later append begins.
  uint64_t end = kExpungedHeaderSize;
  // One per UID (a record appended twice, by a rewrite that crashed after the append, is
  // kept once: the last), ascending.
  std::vector<IndexRecord> records;
  // Records that failed their CRC (damage, reported by reconstruct), by offset.
  std::vector<uint64_t> damaged;
};

// Decodes a whole file. kCorruption for a bad header; a torn last record is left out (`end`
// stops before it). A 1.0 file's cache offsets read as 0.
base::Result<ExpungedIndex> parseExpungedIndex(std::string_view bytes);
// The file in `dir`; an empty index when there is none.
base::Result<ExpungedIndex> readExpungedIndex(io::Env& env, const std::string& dir);

// One expunged message on its way into the file: its record and its cache record's bytes
// (encodeCacheRecord's form; empty when it had none, or it did not read back).
struct ExpungedEntry {
  IndexRecord record;
  std::string cache_record;
};

// Appends `entries` durably: the cache records first (each record's cache_offset set to where
// its cache record went), fsync'd, then the records, fsync'd, and the directory when a file
// was created. A 1.0 file is first rewritten as 1.1. The caller holds the exclusive lock.
base::Status appendExpunged(io::Env& env, const std::string& dir,
                            std::span<ExpungedEntry> entries);

// The cache record bytes (length, CRC, payload) at `offset` of a cache file's bytes if they
// decode as the entry of the message with `guid`; empty otherwise.
std::string cacheRecordAt(std::string_view cache, uint64_t offset, std::string_view guid);

}  // namespace darius::mailbox
