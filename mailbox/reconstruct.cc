#include "mailbox/reconstruct.h"

#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "lib/io/atomic_file.h"
#include "lib/io/file_lock.h"
#include "mailbox/header_file.h"
#include "mailbox/index_format.h"
#include "mailbox/mailbox.h"
#include "mailbox/message_stage.h"
#include "mailbox/search_index.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

uint32_t uidOfMessageFileName(std::string_view name) {
  if (name.size() < 2 || name.size() > 11 || name.back() != '.' || name[0] == '0') return 0;
  uint64_t v = 0;
  for (char c : name.substr(0, name.size() - 1)) {
    if (c < '0' || c > '9') return 0;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v > 0 && v < UINT32_MAX ? static_cast<uint32_t>(v) : 0;
}

namespace {

struct OldState {
  std::optional<IndexHeader> header;
  std::map<uint32_t, IndexRecord> live;
  std::map<uint32_t, IndexRecord> expunged;        // from the index and darius.expunged
  std::map<uint32_t, IndexRecord> index_expunged;  // expunged in place, not yet moved out
  std::string cache;  // the old cache file's bytes, if its generation matched
  // Set when the last append never finished: files above this UID (the highest committed or
  // expunged one) and below uidnext are its debris.
  std::optional<uint32_t> unfinished_above;
  std::vector<uint32_t> unsettled_kept;  // an unsettled last append found intact
  // The index was read whole: no record slot failed to decode and none is missing. Only
  // then does a file in neither index mean "its record went with a purge that crashed
  // before the unlink" rather than "its record was lost".
  bool index_whole = false;
  bool expunged_damaged = false;  // darius.expunged has a bad header: moved aside, remade
};

OldState readOldState(io::Env& env, const std::string& dir, ReconstructReport& report) {
  OldState old;
  auto bytes = env.readFile(dir + "/" + std::string(kIndexFileName));
  if (!bytes.ok()) report.problems.push_back("index: " + bytes.status().message());
  std::string_view v = bytes.ok() ? std::string_view(*bytes) : std::string_view();
  auto h = bytes.ok() ? decodeIndexHeader(v) : Result<IndexHeader>(bytes.status());
  size_t count = (v.size() < kIndexHeaderSize) ? 0 : (v.size() - kIndexHeaderSize) / kIndexRecordSize;
  if (h.ok()) {
    old.header = *h;
    old.index_whole = h->num_records <= count;
    count = std::min<size_t>(count, h->num_records);
    if (h->num_records > count) {
      report.problems.push_back("index: header counts " + std::to_string(h->num_records) +
                                " records, the file holds " + std::to_string(count));
    }
  } else if (bytes.ok()) {
    report.problems.push_back("index: " + h.status().message());
  }
  // The last append, when the header says it is unsettled or torn (index.md, "Settling"):
  // if its records are not all there, or one names a file that is missing or not the bytes
  // it was (a crash inside its round of syncs), it never finished and was never acknowledged.
  // It is rolled back as settleTail() would, and every file above the committed UIDs is
  // debris, not mail. A file that cannot be read is not taken as missing: the rebuild below
  // reads it again and fails, rather than deleting what may be mail.
  bool tail_unfinished = false;
  if (h.ok() && h->prev_num_records < h->num_records) {
    bool intact = count >= h->num_records;
    if (intact) {
      size_t from = kIndexHeaderSize + size_t{h->prev_num_records} * kIndexRecordSize;
      intact = crc32Of(v.substr(from, count * kIndexRecordSize + kIndexHeaderSize - from)) == h->tail_crc;
    }
    bool unreadable = false;
    std::vector<uint32_t> uids;
    for (size_t i = h->prev_num_records; i < count && intact && !unreadable; ++i) {
      auto r = decodeIndexRecord(v.substr(kIndexHeaderSize + i * kIndexRecordSize, kIndexRecordSize));
      if (!r.ok()) {
        intact = false;
        break;
      }
      uids.push_back(r->uid);
      auto file = env.readFile(dir + "/" + std::to_string(r->uid) + ".");
      if (!file.ok()) {
        if (file.status().code() == base::Code::kNotFound) {
          intact = false;
        } else {
          unreadable = true;
        }
      } else if (file->size() != r->size || sha1Of(*file) != r->guid) {
        intact = false;
      }
    }
    if (!intact && !unreadable) {
      report.problems.push_back("index: the last append (" + std::to_string(h->num_records - h->prev_num_records) +
                                " records) never finished; rolled back");
      count = std::min<size_t>(count, h->prev_num_records);
      tail_unfinished = true;
    } else if (intact) {
      old.unsettled_kept = std::move(uids);
    }
  }
  uint32_t last = 0;
  for (size_t i = 0; i < count; ++i) {
    size_t off = kIndexHeaderSize + i * kIndexRecordSize;
    auto r = decodeIndexRecord(v.substr(off, kIndexRecordSize));
    if (!r.ok()) {
      old.index_whole = false;
      // Without a header, slots past the real end read as damage; only report committed ones.
      if (old.header) report.problems.push_back("index offset " + std::to_string(off) + ": " + r.status().message());
      continue;
    }
    if (r->uid <= last) {
      old.index_whole = false;
      report.problems.push_back("index offset " + std::to_string(off) + ": UID " +
                                std::to_string(r->uid) + " out of order (dropped)");
      continue;
    }
    last = r->uid;
    if (r->live()) {
      old.live[r->uid] = *r;
    } else {
      old.expunged[r->uid] = *r;
      old.index_expunged[r->uid] = *r;
    }
  }
  auto gone = readExpungedIndex(env, dir);
  if (gone.ok()) {
    for (const IndexRecord& r : gone->records) {
      old.expunged.emplace(r.uid, r);
      old.index_expunged.erase(r.uid);  // already moved out
    }
    for (uint64_t off : gone->damaged) {
      report.problems.push_back(std::string(kExpungedFileName) + " offset " + std::to_string(off) +
                                ": record damaged (skipped)");
    }
  } else {
    report.problems.push_back(std::string(kExpungedFileName) + ": " + gone.status().message() +
                              " (moved aside)");
    old.expunged_damaged = gone.status().code() == base::Code::kCorruption;
  }
  auto cache = env.readFile(dir + "/" + std::string(kCacheFileName));
  if (cache.ok()) {
    auto gen = decodeCacheHeader(*cache);
    if (gen.ok() && old.header && *gen == old.header->cache_generation) {
      old.cache = std::move(*cache);
    } else {
      report.problems.push_back("cache: " + (gen.ok() ? std::string("generation does not match the index")
                                                      : gen.status().message()));
    }
  } else {
    report.problems.push_back("cache: " + cache.status().message());
  }
  if (tail_unfinished) {
    uint32_t above = 0;
    for (auto* m : {&old.live, &old.expunged}) {
      if (!m->empty()) above = std::max(above, m->rbegin()->first);
    }
    old.unfinished_above = above;
  }
  return old;
}

}  // namespace

Result<ReconstructReport> reconstructMailbox(io::Env& env, const std::string& dir,
                                             const ReconstructOptions& options) {
  ReconstructReport report;
  auto lock = io::FileLock::acquire(dir + "/" + std::string(kLockFileName),
                                    io::LockMode::kExclusive, true);
  if (!lock.ok()) return lock.status();
  auto mh = readMailboxHeader(env, dir);
  if (!mh.ok()) return mh.status();
  OldState old = readOldState(env, dir, report);

  auto names = env.listDir(dir);
  if (!names.ok()) return names.status();
  std::vector<uint32_t> file_uids;
  for (const std::string& n : *names) {
    if (uint32_t uid = uidOfMessageFileName(n)) file_uids.push_back(uid);
  }
  std::sort(file_uids.begin(), file_uids.end());

  IndexHeader h;
  h.uidvalidity = mh->uidvalidity;
  if (old.header) {
    h = *old.header;
    if (h.uidvalidity != mh->uidvalidity) {
      report.problems.push_back("index: UIDVALIDITY " + std::to_string(h.uidvalidity) +
                                " differs from the header file's " + std::to_string(mh->uidvalidity));
      h.uidvalidity = mh->uidvalidity;
    }
  }
  uint64_t max_modseq = old.header ? old.header->highest_modseq : 1;
  for (auto& m : {&old.live, &old.expunged}) {
    for (auto& [uid, r] : *m) max_modseq = std::max(max_modseq, r.modseq);
  }
  const uint64_t new_modseq = max_modseq + 1;

  std::map<uint32_t, IndexRecord> records;  // the new index, live and expunged-in-place
  bool restored_expunged = false;  // some file came back as expunged, at new_modseq
  std::map<uint32_t, CacheEntry> caches;
  for (uint32_t uid : file_uids) {
    std::string path = dir + "/" + std::to_string(uid) + ".";
    auto old_live = old.live.find(uid);
    if (old_live == old.live.end() && old.expunged.count(uid)) continue;  // stays expunged
    if (old_live == old.live.end() && !old.expunged.count(uid) && old.unfinished_above &&
        uid > *old.unfinished_above) {
      report.debris.push_back(path);  // linked by the unfinished last append (above)
      continue;
    }
    if (old_live == old.live.end() && old.header && uid >= old.header->uidnext) {
      // Linked by an append whose index commit never reached the disk: that append was never
      // acknowledged, and its UID is free again. Debris, not mail (docs/formats/index.md).
      report.debris.push_back(path);
      continue;
    }
    auto bytes = env.readFile(path);
    if (!bytes.ok()) return bytes.status();
    IndexRecord r;
    if (old_live != old.live.end()) {
      r = old_live->second;
      if (r.size != bytes->size() || r.guid != sha1Of(*bytes)) {
        report.problems.push_back("UID " + std::to_string(uid) +
                                  ": index record does not match the file (size or GUID)");
        r.size = bytes->size();
        r.guid = sha1Of(*bytes);
        r.header_size = headerSizeOf(*bytes);
        r.modseq = new_modseq;
      }
      for (int b = static_cast<int>(mh->user_flags.size()); b < kMaxUserFlags; ++b) {
        if (r.hasUserFlag(b)) {
          report.problems.push_back("UID " + std::to_string(uid) + ": keyword bit " +
                                    std::to_string(b) + " has no name (cleared)");
          r.setUserFlag(b, false);
        }
      }
    } else {
      struct stat st {};
      r.uid = uid;
      r.internal_date = ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_mtime) : 0;
      r.save_date = r.internal_date;
      r.size = bytes->size();
      r.guid = sha1Of(*bytes);
      r.header_size = headerSizeOf(*bytes);
      r.modseq = new_modseq;
      if (old.index_whole) {
        // In neither index although the index is whole: a purge that crashed between its
        // rename and its unlinks, or a record lost some other way. Restored as expunged, so
        // nothing reappears in a user's folder by surprise: the user can still get it back
        // from .EXPUNGED, and expire removes it on its normal schedule from now.
        report.problems.push_back("UID " + std::to_string(uid) +
                                  ": message file in neither index (restored as expunged)");
        r.system_flags = kFlagExpunged;
        r.expunged_at = static_cast<int64_t>(::time(nullptr));
        old.index_expunged[uid] = r;
        restored_expunged = true;
        continue;
      }
      report.problems.push_back("UID " + std::to_string(uid) + ": message file without index record");
    }
    // The cache entry: kept when the old one is intact, else made again from the file.
    CacheEntry entry;
    bool have = false;
    if (old_live != old.live.end() && r.cache_offset >= kCacheHeaderSize && r.cache_offset < old.cache.size()) {
      auto e = decodeCacheRecordOf(std::string_view(old.cache).substr(r.cache_offset), guidBytes(r.guid));
      if (e.ok()) {
        entry = std::move(*e);
        have = true;
      } else {
        report.problems.push_back("UID " + std::to_string(uid) + ": cache record: " + e.status().message());
      }
    } else if (old_live != old.live.end() && !old.cache.empty()) {
      report.problems.push_back("UID " + std::to_string(uid) + ": no cache record");
    }
    if (!have && options.fill_cache) entry = options.fill_cache(*bytes);
    caches[uid] = std::move(entry);
    records[uid] = r;
  }
  for (auto& [uid, r] : old.live) {
    if (!records.count(uid)) {
      report.problems.push_back("UID " + std::to_string(uid) + ": index record without message file (dropped)");
    }
  }
  IndexHeader n;
  n.uidvalidity = h.uidvalidity;
  n.generation = h.generation + 1;
  n.cache_generation = h.cache_generation + 1;
  n.uidnext = h.uidnext;
  n.highest_modseq = max_modseq;
  n.last_append_date = h.last_append_date;
  // \Recent was already shown up to here; a rebuild must not make old mail recent again.
  n.recent_uid = h.recent_uid;
  uint32_t max_uid = 0;
  std::string record_bytes, cache_bytes = encodeCacheHeader(n.cache_generation);
  for (auto& [uid, r] : old.expunged) max_uid = std::max(max_uid, uid);
  for (auto& [uid, r] : records) {
    IndexRecord rec = r;
    max_uid = std::max(max_uid, uid);
    CacheEntry& e = caches[uid];
    rec.cache_offset = cache_bytes.size();
    cache_bytes += encodeCacheRecord(
        e, guidBytes(rec.guid));
    n.highest_modseq = std::max(n.highest_modseq, rec.modseq);
    accountRecord(n, rec, +1);
    record_bytes += encodeIndexRecord(rec);
    ++n.num_records;
  }
  // Files restored as expunged took new_modseq: HIGHESTMODSEQ covers it, or the next change
  // would reuse it.
  if (restored_expunged) n.highest_modseq = std::max(n.highest_modseq, new_modseq);
  // What expire removed stays removed from QRESYNC's answers; without the old header nobody
  // knows what that was, so every modseq so far counts as possibly purged.
  n.purged_modseq = old.header ? old.header->purged_modseq : n.highest_modseq;
  if (n.uidnext <= max_uid) {
    if (old.header) {
      report.problems.push_back("index: UIDNEXT " + std::to_string(n.uidnext) +
                                " is not above the highest UID " + std::to_string(max_uid));
    }
    n.uidnext = max_uid + 1;
  }
  n.prev_num_records = n.num_records;
  if (old.header) {
    IndexHeader o = *old.header;
    if (o.num_records - o.num_expunged != n.num_records || o.num_seen != n.num_seen ||
        o.num_deleted != n.num_deleted || o.num_flagged != n.num_flagged ||
        o.num_answered != n.num_answered || o.quota_used != n.quota_used) {
      report.problems.push_back("index: header counts are wrong");
    }
  }
  report.messages = n.num_records;
  report.changed = !report.problems.empty();
  if (!options.dry_run) {
    for (const std::string& p : report.debris) {
      Status s = env.removeFile(p);
      if (!s.isOk() && s.code() != base::Code::kNotFound) return s;
    }
  }
  if (!report.changed || options.dry_run) return report;

  // Records expunged in place leave the index now, as a rewrite would move them
  // (mailbox_compact.cc): into darius.expunged first, durable before the new index.
  if (old.expunged_damaged) {
    // A damaged header: nothing can append to it, so it is kept aside (for an operator) and
    // a new one started with what is known.
    std::string p = dir + "/" + std::string(kExpungedFileName);
    DARIUS_RETURN_IF_ERROR(
        env.renameFile(p, p + ".damaged-" + std::to_string(static_cast<int64_t>(::time(nullptr)))));
    DARIUS_RETURN_IF_ERROR(env.syncDir(dir));
    for (auto& [uid, r] : old.expunged) old.index_expunged.emplace(uid, r);
  }
  if (!old.index_expunged.empty()) {
    // Without their cache records: the live cache is about to be rebuilt, and FETCH reads an
    // expunged message without one from its file.
    std::vector<ExpungedEntry> entries;
    for (auto& [uid, r] : old.index_expunged) entries.push_back({r, {}});
    DARIUS_RETURN_IF_ERROR(appendExpunged(env, dir, entries));
  }
  // An unsettled last append that was found intact may still have bytes only in the page
  // cache (a writer killed inside its round): durable before an index without the mark names
  // them.
  if (!old.unsettled_kept.empty()) {
    for (uint32_t uid : old.unsettled_kept) {
      auto f = env.openWritable(dir + "/" + std::to_string(uid) + ".", io::Env::OpenMode::kAppend);
      if (!f.ok()) return f.status();
      DARIUS_RETURN_IF_ERROR((*f)->sync());
      DARIUS_RETURN_IF_ERROR((*f)->close());
    }
    DARIUS_RETURN_IF_ERROR(env.syncDir(dir));
  }
  DARIUS_RETURN_IF_ERROR(io::writeFileAtomic(env, dir + "/" + std::string(kCacheFileName), cache_bytes));
  DARIUS_RETURN_IF_ERROR(io::writeFileAtomic(env, dir + "/" + std::string(kIndexFileName),
                                             encodeIndexHeader(n) + record_bytes));
  // The search index is derived from the messages: what reconstruct changed, it may not know.
  // Removed (not rebuilt here: reconstruct stays quick); the next SEARCH or dariusd's indexer
  // builds it again, and `darius reconstruct` does at once for what it repaired.
  if (Status s = removeSearchIndex(dir); !s.isOk()) return s;
  return report;
}

}  // namespace darius::mailbox
