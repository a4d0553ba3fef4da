// Index rewrite (docs/formats/index.md, "Rewrite"): expunged records leave the index for
// `darius.expunged`, and a new index replaces the old one under a new generation. Readers that
// still map the old file keep reading it safely (it is never truncated) and switch at their
// next refresh(), when they see the inode change.
#include <cstring>
#include <map>

#include "lib/io/atomic_file.h"
#include "mailbox/expunged_file.h"
#include "mailbox/mailbox.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

Result<std::vector<IndexRecord>> Mailbox::expungedRecords() const {
  if (live_) return std::vector<IndexRecord>{};  // nothing leaves the view but by expire
  DARIUS_ASSIGN_OR_RETURN(ExpungedIndex gone, readExpungedIndex(env_, dir_));
  std::map<uint32_t, IndexRecord> by_uid;
  for (const IndexRecord& r : gone.records) by_uid[r.uid] = r;
  // Records expunged in place since the last rewrite: their cache records are still in the
  // live cache, which this view does not name (cache_offset 0: read from the file).
  for (size_t i = 0; i < index_.num_records; ++i) {
    auto r = record(i);
    if (!r.ok()) return r.status();
    if (!r->live()) {
      by_uid[r->uid] = *r;
      by_uid[r->uid].cache_offset = 0;
    }
  }
  std::vector<IndexRecord> out;
  out.reserve(by_uid.size());
  for (auto& [uid, r] : by_uid) out.push_back(r);
  return out;
}

Status Mailbox::compact() {
  if (isReadOnly()) return viewIsReadOnly();
  io::FileLock l;
  DARIUS_RETURN_IF_ERROR(lock(io::LockMode::kExclusive, &l));
  DARIUS_RETURN_IF_ERROR(remapIndex());
  DARIUS_RETURN_IF_ERROR(loadIndexHeader());
  DARIUS_RETURN_IF_ERROR(settleTail());
  IndexHeader h = index_;
  std::vector<ExpungedEntry> gone;
  std::vector<IndexRecord> live_records;
  if (h.num_expunged > 0) DARIUS_RETURN_IF_ERROR(remapCache(kCacheHeaderSize));
  for (size_t i = 0; i < h.num_records; ++i) {
    auto r = record(i);
    if (!r.ok()) return r.status();
    if (r->live()) {
      live_records.push_back(*r);
    } else if (keep_expunged_) {
      // The cache record goes along (Hermes's expunge.cache), so FETCH from .EXPUNGED and
      // an undelete need not parse the message again.
      std::string c = cacheRecordAt(cache_map_.view(), r->cache_offset, guidBytes(r->guid));
      gone.push_back({*r, std::move(c)});
    } else {
      h.purged_modseq = std::max(h.purged_modseq, r->modseq);  // expunge_mode: immediate
    }
  }
  uint32_t live_count = static_cast<uint32_t>(live_records.size());
  // 1. The expunged records and their cache records, durable in their own files before they
  //    leave the index (expunged_file.h).
  DARIUS_RETURN_IF_ERROR(appendExpunged(env_, dir_, gone));
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
  h.minor = std::max(h.minor, kIndexMinor);  // fields this code writes exist from its minor on
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
