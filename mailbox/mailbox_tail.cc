// The last append of a mailbox after a crash: settled (its syncs redone, the header marked) when
// the message files it names are intact, rolled back when one is not. Runs under the
// exclusive lock on a freshly loaded header, before any write (docs/formats/index.md,
// "Commit" and "Crash safety").
#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "mailbox/cache_fill.h"
#include "mailbox/delivery_journal.h"
#include "mailbox/mailbox.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

Status Mailbox::settleTail() {
  if (tail_suspect_) return repairTornAppend();
  if (!tailUnsettled()) return Status::ok();
  if (journal_ != nullptr) {
    if (std::optional<uint64_t> lsn = journal_->tailInFlight(dir_)) {
      // An append of this process committing through the journal without the lock
      // (Mailbox::commitToJournal): its flush makes the tail durable, so wait for it and
      // settle the tail as the append would. If the flush fails, settle from the files below.
      if (journal_->sync(*lsn).isOk()) {
        IndexHeader full = *unsettled_;
        full.prev_num_records = full.num_records;
        full.tail_crc = 0;
        auto f = env_.openWritable(path(kIndexFileName), io::Env::OpenMode::kExisting);
        if (!f.ok()) return f.status();
        DARIUS_RETURN_IF_ERROR(writeIndexHeader(**f, full, /*sync=*/false));
        unsettled_.reset();
        return (*f)->close();
      }
    }
  }
  // An append writes its records and header, then syncs everything at once, then marks the
  // header settled (prev_num_records = num_records) without a sync. An unsettled tail is an
  // append whose round of syncs may not have finished: its records are durable, but the
  // message files or their directory entries may not be. Each file is checked against its
  // record; if all hold, the round may have finished (and the caller been answered), so the
  // append stays and its syncs are redone. If one does not, the round never finished,
  // nothing was acknowledged, and the append is rolled back like a torn one. A bad cache
  // record never costs mail: it is made again from the file.
  const IndexHeader hidden = index_, full = *unsettled_;
  const uint32_t from = hidden.num_records, to = full.num_records;
  index_ = full;
  unsettled_.reset();
  auto hideAgain = [&](Status why) {
    index_ = hidden;
    unsettled_ = full;
    return why;
  };
  std::vector<uint32_t> uids;
  std::vector<std::pair<size_t, CacheEntry>> rebuild;  // record number, made from the file
  bool intact = true;
  for (uint32_t i = from; i < to && intact; ++i) {
    auto r = record(i);
    if (!r.ok()) return hideAgain(r.status());
    uids.push_back(r->uid);
    auto bytes = env_.readFile(messagePath(r->uid));
    if (!bytes.ok()) {
      if (bytes.status().code() != base::Code::kNotFound) return hideAgain(bytes.status());
      intact = false;
      continue;
    }
    intact = bytes->size() == r->size && sha1Of(*bytes) == r->guid;
    if (!intact || r->cache_offset == 0) continue;
    auto c = cache(*r);
    if (c.ok()) continue;
    // kNotFound: no cache file at all; the records keep their offsets, readers parse the
    // files, and reconstruct makes a cache again. Neither is a reason to hold the mailbox.
    if (c.status().code() == base::Code::kNotFound) continue;
    if (c.status().code() != base::Code::kCorruption) return hideAgain(c.status());
    rebuild.emplace_back(i, buildCacheEntry(*bytes));
  }
  if (!intact) {
    index_ = full;
    index_.num_records = from;
    tail_suspect_ = true;
    return repairTornAppend();
  }
  // The round again, a bounded number of files at a time (a tail can be a whole mailbox:
  // renameInbox, a large COPY); the cache and the directory go with the first batch. A tail
  // is never empty (prev_num_records < num_records), so there is a first batch.
  constexpr size_t kBatch = 64;
  for (size_t at = 0; at < uids.size(); at += kBatch) {
    std::vector<std::unique_ptr<io::WritableFile>> files;
    std::vector<std::function<Status()>> round;
    for (size_t k = at; k < std::min(uids.size(), at + kBatch); ++k) {
      auto f = env_.openWritable(messagePath(uids[k]), io::Env::OpenMode::kAppend);
      if (!f.ok()) return hideAgain(f.status());
      io::WritableFile* file = f->get();
      round.push_back([file] { return file->sync(); });
      files.push_back(std::move(*f));
    }
    if (at == 0) {
      auto c = env_.openWritable(path(kCacheFileName), io::Env::OpenMode::kAppend);
      if (!c.ok()) return hideAgain(c.status());
      io::WritableFile* cache_file = c->get();
      round.push_back([cache_file] { return cache_file->sync(); });
      files.push_back(std::move(*c));
      round.push_back([this] { return env_.syncDir(dir_); });
    }
    Status synced = env_.runConcurrently(round);
    for (auto& f : files) {
      Status closed = f->close();
      if (synced.isOk()) synced = closed;
    }
    if (!synced.isOk()) return hideAgain(synced);
  }
  auto f = env_.openWritable(path(kIndexFileName), io::Env::OpenMode::kAppend);
  if (!f.ok()) return hideAgain(f.status());
  IndexHeader h = index_;
  h.prev_num_records = h.num_records;
  h.tail_crc = 0;
  if (Status s = writeIndexHeader(**f, h); !s.isOk()) return hideAgain(s);
  if (!rebuild.empty()) {
    // Settled first, then the cache records made again and the records pointed at them,
    // as a flag change rewrites records in place: a crash between leaves the old records,
    // which read as kCorruption and are parsed from the file, never lost mail.
    auto c = env_.openWritable(path(kCacheFileName), io::Env::OpenMode::kAppend);
    if (!c.ok()) return c.status();
    std::string batch;
    uint64_t base = (*c)->size();
    std::vector<std::pair<size_t, IndexRecord>> moved;
    for (auto& [i, entry] : rebuild) {
      DARIUS_ASSIGN_OR_RETURN(IndexRecord r, record(i));
      r.cache_offset = base + batch.size();
      batch += encodeCacheRecord(entry,
                                 guidBytes(r.guid));
      moved.emplace_back(i, r);
    }
    DARIUS_RETURN_IF_ERROR((*c)->append(batch));
    DARIUS_RETURN_IF_ERROR((*c)->sync());
    DARIUS_RETURN_IF_ERROR((*c)->close());
    for (auto& [i, r] : moved) {
      DARIUS_RETURN_IF_ERROR(
          (*f)->pwrite(kIndexHeaderSize + uint64_t{i} * kIndexRecordSize, encodeIndexRecord(r)));
    }
    DARIUS_RETURN_IF_ERROR((*f)->sync());
    DARIUS_RETURN_IF_ERROR(remapIndex());
  }
  return (*f)->close();
}

// Called with the exclusive lock when the last append's header reached the disk without its
// records. The append was never acknowledged, so it is rolled back: its message files go, the
// counts are recomputed, and the UIDs it took stay used (UIDs never go backwards).
Status Mailbox::repairTornAppend() {
  IndexHeader h = index_;  // loadIndexHeader() already cut num_records back
  uint32_t max_uid = 0;
  h.num_deleted = h.num_seen = h.num_answered = h.num_flagged = 0;
  h.num_expunged = 0;
  h.quota_used = 0;
  for (size_t i = 0; i < h.num_records; ++i) {
    auto r = record(i);
    if (!r.ok()) return r.status();
    max_uid = std::max(max_uid, r->uid);
    if (!r->live()) ++h.num_expunged;
    accountRecord(h, *r, +1);
  }
  auto gone = expungedRecords();
  if (!gone.ok()) return gone.status();
  for (const IndexRecord& r : *gone) max_uid = std::max(max_uid, r.uid);
  for (uint32_t uid = max_uid + 1; uid < h.uidnext; ++uid) {
    Status s = env_.removeFile(messagePath(uid));
    if (!s.isOk() && s.code() != base::Code::kNotFound) return s;
  }
  DARIUS_RETURN_IF_ERROR(env_.syncDir(dir_));
  auto f = env_.openWritable(path(kIndexFileName), io::Env::OpenMode::kAppend);
  if (!f.ok()) return f.status();
  h.prev_num_records = h.num_records;
  h.tail_crc = 0;
  DARIUS_RETURN_IF_ERROR(writeIndexHeader(**f, h));
  tail_suspect_ = false;
  return (*f)->close();
}

}  // namespace darius::mailbox
