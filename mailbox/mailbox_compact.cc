// Index rewrite (docs/formats/index.md, "Rewrite"): expunged records leave the index for
// `darius.expunged`, and a new index replaces the old one under a new generation. Readers that
// still map the old file keep reading it safely (it is never truncated) and switch at their
// next refresh(), when they see the inode change.
#include <cstring>
#include <map>

#include "lib/io/atomic_file.h"
#include "mailbox/mailbox.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

constexpr size_t kExpungedHeaderSize = 16;

}  // namespace

Result<std::vector<IndexRecord>> Mailbox::expungedRecords() const {
  std::map<uint32_t, IndexRecord> by_uid;
  auto bytes = env_.readFile(path(kExpungedFileName));
  if (bytes.ok()) {
    std::string_view v = *bytes;
    if (v.size() < kExpungedHeaderSize || v.substr(0, kExpungedHeaderSize) != expungedFileHeader()) {
      return Status::corruption(path(kExpungedFileName) + ": bad header at offset 0");
    }
    // A torn tail (a crash during the append) is ignored: the records are still in the old
    // index, which stayed in place, and the next rewrite appends them again.
    for (size_t off = kExpungedHeaderSize; off + kIndexRecordSize <= v.size();
         off += kIndexRecordSize) {
      auto r = decodeIndexRecord(v.substr(off, kIndexRecordSize));
      if (!r.ok()) continue;
      by_uid[r->uid] = *r;
    }
  } else if (bytes.status().code() != base::Code::kNotFound) {
    return bytes.status();
  }
  for (size_t i = 0; i < index_.num_records; ++i) {
    auto r = record(i);
    if (!r.ok()) return r.status();
    if (!r->live()) by_uid[r->uid] = *r;
  }
  std::vector<IndexRecord> out;
  out.reserve(by_uid.size());
  for (auto& [uid, r] : by_uid) out.push_back(r);
  return out;
}

Status Mailbox::compact() {
  io::FileLock l;
  DARIUS_RETURN_IF_ERROR(lock(io::LockMode::kExclusive, &l));
  DARIUS_RETURN_IF_ERROR(remapIndex());
  DARIUS_RETURN_IF_ERROR(loadIndexHeader());
  DARIUS_RETURN_IF_ERROR(settleTail());
  IndexHeader h = index_;
  std::string gone;
  std::vector<IndexRecord> live_records;
  for (size_t i = 0; i < h.num_records; ++i) {
    auto r = record(i);
    if (!r.ok()) return r.status();
    if (r->live()) {
      live_records.push_back(*r);
    } else {
      gone += encodeIndexRecord(*r);
    }
  }
  uint32_t live_count = static_cast<uint32_t>(live_records.size());
  // 1. The expunged records, durable in their own file before they leave the index.
  if (!gone.empty()) {
    std::string p = path(kExpungedFileName);
    auto exists = env_.fileExists(p);
    if (!exists.ok()) return exists.status();
    auto f = env_.openWritable(p, io::Env::OpenMode::kAppend);
    if (!f.ok()) return f.status();
    if ((*f)->size() == 0) DARIUS_RETURN_IF_ERROR((*f)->append(expungedFileHeader()));
    DARIUS_RETURN_IF_ERROR((*f)->append(gone));
    DARIUS_RETURN_IF_ERROR((*f)->sync());
    DARIUS_RETURN_IF_ERROR((*f)->close());
    if (!*exists) DARIUS_RETURN_IF_ERROR(env_.syncDir(dir_));
  }
  // 2. The cache, when expunges left enough dead space in it (cache.md, "Dead space"): the
  //    live records are copied to a new file of the next generation, renamed in before the
  //    index that refers to it. A crash in between leaves an index whose cache generation
  //    does not match: the next open rebuilds the cache from the message files.
  DARIUS_RETURN_IF_ERROR(rewriteCacheIfSparse(live_records, h));
  std::string live;
  live.reserve(live_records.size() * kIndexRecordSize);
  for (const IndexRecord& r : live_records) live += encodeIndexRecord(r);
  // 3. The new index, renamed over the old one (writeFileAtomic: temp, fsync, rename, fsync
  //    of the directory).
  h.generation += 1;
  h.num_records = live_count;
  h.num_expunged = 0;
  h.prev_num_records = live_count;
  h.tail_crc = 0;
  DARIUS_RETURN_IF_ERROR(io::writeFileAtomic(env_, path(kIndexFileName), encodeIndexHeader(h) + live));
  DARIUS_RETURN_IF_ERROR(remapIndex());
  return loadIndexHeader();
}

Status Mailbox::rewriteCacheIfSparse(std::vector<IndexRecord>& live, IndexHeader& h) {
  DARIUS_RETURN_IF_ERROR(remapCache(kCacheHeaderSize));
  std::string_view old = cache_map_.view();
  uint64_t live_bytes = 0;
  std::vector<std::pair<uint64_t, uint32_t>> spans;  // offset, length of each live record
  spans.reserve(live.size());
  for (const IndexRecord& r : live) {
    if (r.cache_offset < kCacheHeaderSize || r.cache_offset + kCacheRecordOverhead > old.size()) {
      spans.emplace_back(0, 0);
      continue;
    }
    uint32_t len = 0;
    std::memcpy(&len, old.data() + r.cache_offset, 4);  // little-endian hosts only (cache.md)
    uint64_t whole = uint64_t{kCacheRecordOverhead} + len;
    if (r.cache_offset + whole > old.size()) whole = 0;
    spans.emplace_back(r.cache_offset, static_cast<uint32_t>(whole));
    live_bytes += whole;
  }
  uint64_t dead = old.size() - kCacheHeaderSize - std::min<uint64_t>(live_bytes, old.size() - kCacheHeaderSize);
  if (dead < compact_policy_.min_dead_bytes ||
      static_cast<double>(dead) < compact_policy_.dead_ratio * static_cast<double>(old.size())) {
    return Status::ok();
  }
  uint64_t generation = h.cache_generation + 1;
  std::string bytes = encodeCacheHeader(generation);
  bytes.reserve(kCacheHeaderSize + live_bytes);
  for (size_t i = 0; i < live.size(); ++i) {
    if (spans[i].second == 0) {
      live[i].cache_offset = 0;  // unreadable before: FETCH parses the file; reconstruct refills
      continue;
    }
    live[i].cache_offset = bytes.size();
    bytes.append(old.substr(spans[i].first, spans[i].second));
  }
  DARIUS_RETURN_IF_ERROR(io::writeFileAtomic(env_, path(kCacheFileName), bytes));
  h.cache_generation = generation;
  return Status::ok();
}

}  // namespace darius::mailbox
