#include "mailbox/expunged_file.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "lib/io/atomic_file.h"
#include "mailbox/cache_format.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

uint16_t loadLe16(std::string_view v, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(v[at]) | static_cast<uint8_t>(v[at + 1]) << 8);
}

uint32_t loadLe32(std::string_view v, size_t at) {
  uint32_t u = 0;
  for (size_t i = 0; i < 4; ++i) u |= uint32_t{static_cast<uint8_t>(v[at + i])} << (8 * i);
  return u;
}

}  // namespace

std::string expungedFileHeader(uint16_t minor) {
  std::string out(kExpungedMagic);
  out.push_back(static_cast<char>(kExpungedMajor & 0xff));
  out.push_back(static_cast<char>(kExpungedMajor >> 8));
  out.push_back(static_cast<char>(minor & 0xff));
  out.push_back(static_cast<char>(minor >> 8));
  for (int i = 0; i < 4; ++i) {
    out.push_back(static_cast<char>((kIndexRecordSize >> (8 * i)) & 0xff));
  }
  return out;
}

Result<ExpungedIndex> parseExpungedIndex(std::string_view v) {
  if (v.size() < kExpungedHeaderSize || v.substr(0, kExpungedMagic.size()) != kExpungedMagic) {
    return Status::corruption("not an expunged index (bad magic at offset 0)");
  }
  ExpungedIndex out;
  uint16_t major = loadLe16(v, 8);
  out.minor = loadLe16(v, 10);
  if (major != kExpungedMajor || loadLe32(v, 12) != kIndexRecordSize) {
    return Status::corruption("expunged index version " + std::to_string(major) + "." +
                              std::to_string(out.minor) + " is not supported (offset 8)");
  }
  std::map<uint32_t, IndexRecord> by_uid;
  size_t off = kExpungedHeaderSize;
  for (; off + kIndexRecordSize <= v.size(); off += kIndexRecordSize) {
    auto r = decodeIndexRecord(v.substr(off, kIndexRecordSize));
    if (!r.ok()) {
      out.damaged.push_back(off);
      continue;
    }
    if (out.minor == 0) r->cache_offset = 0;
    by_uid[r->uid] = *r;
  }
  // A torn last record (a crash inside an append) is not damage: the append is done again.
  if (!out.damaged.empty() && out.damaged.back() + kIndexRecordSize == off) {
    off = out.damaged.back();
    out.damaged.pop_back();
  }
  out.end = off;
  out.records.reserve(by_uid.size());
  for (auto& [uid, r] : by_uid) out.records.push_back(r);
  return out;
}

Result<ExpungedIndex> readExpungedIndex(io::Env& env, const std::string& dir) {
  auto bytes = env.readFile(dir + "/" + std::string(kExpungedFileName));
  if (!bytes.ok()) {
    if (bytes.status().code() == base::Code::kNotFound) return ExpungedIndex{};
    return bytes.status();
  }
  // Shorter than a header: a creation cut before its data reached the disk (the name was made
  // durable by another operation's directory sync). No record was ever in it.
  if (bytes->size() < kExpungedHeaderSize) return ExpungedIndex{};
  auto e = parseExpungedIndex(*bytes);
  if (!e.ok()) return Status::corruption(dir + "/" + std::string(kExpungedFileName) + ": " +
                                         e.status().message());
  return e;
}

std::string cacheRecordAt(std::string_view cache, uint64_t offset, std::string_view guid) {
  if (offset < kCacheHeaderSize || offset >= cache.size()) return {};  // no sum: it could wrap
  std::string_view at = cache.substr(offset);
  if (!decodeCacheRecordOf(at, guid).ok()) return {};
  uint32_t len = loadLe32(at, 0);
  return std::string(at.substr(0, kCacheRecordOverhead + uint64_t{len}));
}

Status appendExpunged(io::Env& env, const std::string& dir, std::span<ExpungedEntry> entries) {
  if (entries.empty()) return Status::ok();
  const std::string index_path = dir + "/" + std::string(kExpungedFileName);
  const std::string cache_path = dir + "/" + std::string(kExpungedCacheFileName);
  bool created = false;
  // Where this append's records go in an existing file: after its last whole record, so that
  // a torn or bad last slot (which parseExpungedIndex does not count as damage) is written over.
  uint64_t valid_end = UINT64_MAX;
  // A 1.0 file's cache offsets point into a live cache of the past: rewrite it as 1.1 with
  // none, so that every record of a 1.1 file means the expunged cache.
  auto existing = env.readFile(index_path);
  if (existing.ok() && existing->size() >= kExpungedHeaderSize) {
    auto old = parseExpungedIndex(*existing);
    if (!old.ok()) return Status::corruption(index_path + ": " + old.status().message());
    valid_end = old->end;
    if (old->minor == 0) {
      std::string upgraded = expungedFileHeader();
      for (const IndexRecord& r : old->records) upgraded += encodeIndexRecord(r);
      DARIUS_RETURN_IF_ERROR(io::writeFileAtomic(env, index_path, upgraded));
      valid_end = upgraded.size();
    }
  } else if (!existing.ok() && existing.status().code() != base::Code::kNotFound) {
    return existing.status();
  }
  // 1. The cache records, durable before any record names them.
  bool any_cache = false;
  for (const ExpungedEntry& e : entries) any_cache = any_cache || !e.cache_record.empty();
  if (any_cache) {
    auto c = env.openWritable(cache_path, io::Env::OpenMode::kAppend);
    if (!c.ok()) return c.status();
    uint64_t at = (*c)->size();
    std::string bytes;
    if (at < kCacheHeaderSize) {
      // Empty, or a header torn by a crash: start the file again (nothing points into it).
      bytes = encodeCacheHeader(1);
      at = 0;
      created = true;
    }
    for (ExpungedEntry& e : entries) {
      if (e.cache_record.empty()) {
        e.record.cache_offset = 0;
        continue;
      }
      e.record.cache_offset = at + bytes.size();
      bytes += e.cache_record;
    }
    DARIUS_RETURN_IF_ERROR((*c)->pwrite(at, bytes));
    DARIUS_RETURN_IF_ERROR((*c)->sync());
    DARIUS_RETURN_IF_ERROR((*c)->close());
    // The cache's name durable before any record names it (else a cut leaves cache misses).
    if (created) DARIUS_RETURN_IF_ERROR(env.syncDir(dir));
    created = false;
  } else {
    for (ExpungedEntry& e : entries) e.record.cache_offset = 0;
  }
  // 2. The records.
  auto f = env.openWritable(index_path, io::Env::OpenMode::kAppend);
  if (!f.ok()) return f.status();
  std::string out;
  uint64_t at = (*f)->size();
  if (at < kExpungedHeaderSize) {
    out = expungedFileHeader();
    at = 0;
    created = true;
  } else {
    // A torn record at the end is written over, or every later record would be misaligned.
    at -= (at - kExpungedHeaderSize) % kIndexRecordSize;
    at = std::min(at, valid_end);
  }
  for (const ExpungedEntry& e : entries) out += encodeIndexRecord(e.record);
  DARIUS_RETURN_IF_ERROR((*f)->pwrite(at, out));
  DARIUS_RETURN_IF_ERROR((*f)->sync());
  DARIUS_RETURN_IF_ERROR((*f)->close());
  if (created) DARIUS_RETURN_IF_ERROR(env.syncDir(dir));
  return Status::ok();
}

}  // namespace darius::mailbox
