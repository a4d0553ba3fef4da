// Writes to a mailbox: append, flag changes and phase-1 expunge. Each runs under the exclusive
// lock on a freshly loaded header whose last append is settled first (mailbox_tail.cc), and
// ends with one fsync of the index (docs/formats/index.md, "Commit").
#include <algorithm>
#include <ctime>
#include <functional>
#include <memory>
#include <set>

#include "lib/log/log.h"
#include "mailbox/change_log.h"
#include "mailbox/delivery_journal.h"
#include "mailbox/mailbox.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

// Expunged records pile up in the index until this many (or a quarter of the index), then a
// rewrite moves them out: a rewrite costs O(mailbox) so it must be rare, but readers skip
// expunged records one by one, so they must not dominate either.
constexpr uint32_t kCompactMinExpunged = 256;

}  // namespace

Result<int> Mailbox::userFlagBit(const std::string& keyword, MailboxHeader& h, bool create) {
  int bit = h.findUserFlag(keyword);
  if (bit >= 0 || !create) return bit;
  if (h.user_flags.size() >= static_cast<size_t>(kMaxUserFlags)) {
    return Status::tooBig("mailbox already has " + std::to_string(kMaxUserFlags) +
                          " keywords");
  }
  h.user_flags.push_back(keyword);
  return static_cast<int>(h.user_flags.size() - 1);
}

Status Mailbox::writeIndexHeader(io::WritableFile& f, IndexHeader h, bool sync) {
  h.minor = std::max(h.minor, kIndexMinor);  // fields this code writes exist from its minor on
  DARIUS_RETURN_IF_ERROR(f.pwrite(0, encodeIndexHeader(h)));
  if (sync) DARIUS_RETURN_IF_ERROR(f.sync());
  index_ = h;
  return remapIndex();
}

// An append-only handle (openForAppend) reads the index header with one pread of the file
// the append writes anyway: no second descriptor, no mapping to set up and tear down (an
// munmap is a TLB shootdown across cores). The records are mapped only when the last append
// is not settled, as settleTail() reads them.
Status Mailbox::loadIndexHeaderForAppend(io::WritableFile& f) {
  DARIUS_ASSIGN_OR_RETURN(std::string bytes, f.pread(0, kIndexHeaderSize));
  auto h = decodeIndexHeader(bytes);
  if (h.ok() && h->prev_num_records == h->num_records &&
      kIndexHeaderSize + uint64_t{h->num_records} * kIndexRecordSize <= f.size()) {
    tail_suspect_ = false;
    unsettled_.reset();
    index_ = *h;
    return Status::ok();
  }
  DARIUS_RETURN_IF_ERROR(remapIndex());
  return loadIndexHeader();
}

Result<std::vector<Appended>> Mailbox::append(std::span<const AppendRequest> requests) {
  if (isReadOnly()) return viewIsReadOnly();
  std::vector<Appended> out;
  if (requests.empty()) return out;
  io::FileLock l;
  DARIUS_RETURN_IF_ERROR(lock(io::LockMode::kExclusive, &l));
  // The descriptor the append writes; never creates (a mailbox without an index is kNotFound,
  // which openForAppend's caller falls back on).
  DARIUS_ASSIGN_OR_RETURN(std::unique_ptr<io::WritableFile> index_file,
                          env_.openWritable(path(kIndexFileName), io::Env::OpenMode::kExisting));
  if (append_only_) {
    DARIUS_RETURN_IF_ERROR(loadIndexHeaderForAppend(*index_file));
  } else {
    DARIUS_RETURN_IF_ERROR(remapIndex());
    DARIUS_RETURN_IF_ERROR(loadIndexHeader());
  }
  DARIUS_RETURN_IF_ERROR(settleTail());
  // Before the first write this commit depends on (io::SyncBarrier, "Errors"): the earliest
  // of now and the marks of the stage files.
  // A stage file marked by another barrier (or none: staged in another partition, a race
  // with a re-create) is not judged by this one: its own fsync runs in the round below.
  uint64_t sync_mark = barrier_ != nullptr ? barrier_->mark() : 0;
  for (const AppendRequest& q : requests) {
    if (q.message != nullptr && q.message->sync_barrier == barrier_) {
      sync_mark = std::min(sync_mark, q.message->sync_mark);
    }
  }
  wrote_ = false;
  auto disk_header = readMailboxHeader(env_, dir_);
  if (!disk_header.ok()) return disk_header.status();
  MailboxHeader mh = std::move(*disk_header);
  size_t known_flags = mh.user_flags.size();

  IndexHeader h = index_;
  if (uint64_t{h.uidnext} + requests.size() >= UINT32_MAX) {
    return Status::tooBig("UIDs of this mailbox are exhausted; it needs a new UIDVALIDITY");
  }
  uint64_t modseq = h.highest_modseq + 1;
  int64_t now = static_cast<int64_t>(::time(nullptr));
  std::vector<IndexRecord> records;
  for (size_t i = 0; i < requests.size(); ++i) {
    const AppendRequest& q = requests[i];
    if (q.message == nullptr || (q.system_flags & ~(kKnownFlagBits & ~kFlagExpunged)) != 0) {
      return Status::invalid("append: bad message or flags");
    }
    IndexRecord r;
    r.uid = h.uidnext + static_cast<uint32_t>(i);
    r.system_flags = q.system_flags;
    r.internal_date = q.internal_date;
    r.tz_offset_minutes = q.tz_offset_minutes;
    r.save_date = now;
    r.size = q.message->size;
    r.header_size = q.message->header_size;
    r.modseq = modseq;
    r.guid = q.message->guid;
    for (const std::string& k : q.keywords) {
      auto bit = userFlagBit(k, mh, true);
      if (!bit.ok()) return bit.status();
      r.setUserFlag(*bit, true);
    }
    records.push_back(r);
  }
  // New keyword names must be durable before any record uses their bits.
  if (mh.user_flags.size() != known_flags) DARIUS_RETURN_IF_ERROR(writeMailboxHeader(env_, dir_, mh));
  header_ = mh;

  // The commit is one round of syncs (docs/formats/index.md, "Commit"): the message files,
  // the cache records and the index records that name them are all written first, then synced
  // at once (Env::runConcurrently), which costs about one flush latency. The index may so
  // become durable before what it names; the header's prev_num_records marks such a tail as
  // unsettled until the round has finished, and after a crash settleTail() checks it against
  // the files before anyone reads it (Mailbox::open) or writes after it.
  //
  // 1. The message files, under their UIDs. A file already there belongs to an append that
  //    crashed before its commit (its UID was never acknowledged): replace it.
  std::vector<std::function<Status()>> stage_syncs;
  // Journaled (delivery_journal.h): every message's bytes are in this mailbox's journal, whose
  // fdatasync below is the whole commit.
  bool journaled = journal_ != nullptr;
  for (const AppendRequest& q : requests) journaled = journaled && q.message->journal == journal_;
  for (size_t i = 0; i < records.size(); ++i) {
    const StagedMessage& m = *requests[i].message;
    std::string target = messagePath(records[i].uid);
    if (m.bytes != nullptr) {
      // Journaled, no stage file: the UID file is written here (or linked to the one an
      // earlier append of the message wrote). Outside its journal it is synced in the round.
      DARIUS_RETURN_IF_ERROR(writeMessageFile(m, target));
      if (!journaled) stage_syncs.push_back([this, target] { return syncFileAt(target); });
      continue;
    }
    Status s = env_.linkFile(m.path, target);
    if (s.code() == base::Code::kExists) {
      DARIUS_RETURN_IF_ERROR(env_.removeFile(target));
      s = env_.linkFile(m.path, target);
    }
    if (!s.isOk()) {
      // A stage directory on another filesystem (DESIGN.md §8): copy instead of linking.
      auto bytes = env_.readFile(m.path);
      if (!bytes.ok()) return s;
      Status gone = env_.removeFile(target);
      if (!gone.isOk() && gone.code() != base::Code::kNotFound) return gone;
      auto w = env_.openWritable(target, io::Env::OpenMode::kCreateNew);
      if (!w.ok()) return w.status();
      DARIUS_RETURN_IF_ERROR((*w)->append(*bytes));
      DARIUS_RETURN_IF_ERROR((*w)->sync());
      DARIUS_RETURN_IF_ERROR((*w)->close());
      continue;
    }
    // A stage file written without its fsync: its bytes become durable in this round (with a
    // barrier that marked it, its filesystem sync covers the stage file like everything else).
    if (journal_ != nullptr && !journaled && !m.pending_sync) {
      // A file linked from elsewhere (a COPY's source, a journaled stage file appended on its
      // own) may be a delivery the journal has not checkpointed yet: its data is synced here.
      stage_syncs.push_back([this, target] { return syncFileAt(target); });
    }
    if (m.pending_sync && (barrier_ == nullptr || m.sync_barrier != barrier_)) {
      std::shared_ptr<PendingSync> p = m.pending_sync;
      bool seen = false;
      for (size_t j = 0; j < i; ++j) seen |= requests[j].message->pending_sync == p;
      if (!seen) stage_syncs.push_back([p] { return p->run(); });
    }
  }

  // 2. The cache records.
  auto c = env_.openWritable(path(kCacheFileName), io::Env::OpenMode::kAppend);
  if (!c.ok()) return c.status();
  {
    std::string batch;
    uint64_t base = (*c)->size();
    for (size_t i = 0; i < records.size(); ++i) {
      records[i].cache_offset = base + batch.size();
      batch += encodeCacheRecord(requests[i].message->cache, guidBytes(requests[i].message->guid));
    }
    DARIUS_RETURN_IF_ERROR((*c)->append(batch));
  }
  io::WritableFile* cache_file = c->get();

  // 3. The index: records after the committed ones, then the header that commits them, with
  //    prev_num_records = the old count (unsettled) and the tail CRC that tells a reader
  //    whether the records made it too.
  std::string tail;
  for (const IndexRecord& r : records) {
    tail += encodeIndexRecord(r);
    accountRecord(h, r, +1);
    out.push_back({r.uid, r.modseq});
  }
  wrote_ = true;  // from here a failed append may still surface (settling decides)
  DARIUS_RETURN_IF_ERROR(
      index_file->pwrite(kIndexHeaderSize + uint64_t{h.num_records} * kIndexRecordSize, tail));
  h.prev_num_records = h.num_records;
  h.num_records += static_cast<uint32_t>(records.size());
  h.tail_crc = crc32Of(tail);
  h.uidnext += static_cast<uint32_t>(records.size());
  h.highest_modseq = modseq;
  h.last_append_date = now;
  h.minor = std::max(h.minor, kIndexMinor);
  DARIUS_RETURN_IF_ERROR(index_file->pwrite(0, encodeIndexHeader(h)));

  // 4. The round: the index first and the stage files last, so that FaultyEnv, which runs a
  //    round in order (or reversed), cuts power between a durable index and the bytes it
  //    names (or the reverse). The change log append runs in the round too: its record may be
  //    durable before the index, which the log's readers allow (docs/formats/changelog.md,
  //    "In flight"); the caller is answered only when all are done.
  //    With a SyncBarrier the round is one filesystem-wide sync after the change log record
  //    is written: it covers the stage files, the links, the cache, the index and the log, and
  //    is shared with every other append of the partition in flight.
  std::vector<std::pair<uint32_t, uint64_t>> logged;
  for (const Appended& a : out) logged.emplace_back(a.uid, a.modseq);
  Status synced;
  JournalTail journal_tail = JournalTail::kOurs;
  if (journaled) {
    synced = commitToJournal(h, records, requests, l, *index_file, &journal_tail);
  } else if (barrier_ != nullptr) {
    if (!stage_syncs.empty()) synced = env_.runConcurrently(stage_syncs);
    noteChange(static_cast<int>(ChangeType::kAppend), logged, /*synced=*/false);
    Status all = barrier_->sync(sync_mark);
    if (synced.isOk()) synced = all;
  } else {
    io::WritableFile* index = index_file.get();
    std::vector<std::function<Status()>> round = {
        [index] { return index->sync(); },
        [this, &logged] {
          noteChange(static_cast<int>(ChangeType::kAppend), logged);
          return Status::ok();
        },
        [this] { return env_.syncDir(dir_); },
        [cache_file] { return cache_file->sync(); },
    };
    round.insert(round.end(), stage_syncs.begin(), stage_syncs.end());
    synced = env_.runConcurrently(round);
  }
  Status closed = (*c)->close();
  if (synced.isOk()) synced = closed;
  if (journal_tail == JournalTail::kSettledByOther) {
    // Another handle waited for the same journal sync and settled the tail (settleTail), or
    // synced its files itself: it is durable and stays, whatever this round reported.
    synced = Status::ok();
  }
  if (journal_tail == JournalTail::kUnlocked && !synced.isOk()) return synced;  // hands off the index
  if (!synced.isOk()) {
    // Not acknowledged: put the old header back, so that the append does not surface later
    // when the page cache reaches the disk (the caller reports a failure, a sender retries).
    // If even that fails, the tail stays unsettled and settleTail() decides at the next write.
    (void)index_file->pwrite(0, encodeIndexHeader(index_));
    (void)index_file->sync();
    return synced;
  }
  // 5. Settled: every byte the tail names is durable. The mark needs no sync of its own: if
  //    a crash loses it, settleTail() finds the tail intact and marks it then.
  //    From here on the append has happened: nothing below may report it as failed, or the
  //    sender retries and the message is stored twice.
  h.prev_num_records = h.num_records;
  h.tail_crc = 0;
  if (journal_tail == JournalTail::kOurs) (void)index_file->pwrite(0, encodeIndexHeader(h));
  if (journaled) {
    // Logged once the append is visible, so that a session the record wakes (IDLE) finds it:
    // the flush ran without the lock, and a refresh during it still saw the tail hidden. Not
    // synced here: the journal's checkpoint syncs the log, and a replay logs the append again
    // (docs/formats/journal.md, "Change log").
    noteChange(static_cast<int>(ChangeType::kAppend), logged, /*synced=*/false);
  }
  if (append_only_) {
    // Nobody reads through this handle: no mapping of the longer file.
    index_ = IndexHeader{};
  } else if (Status mapped = remapIndex(); mapped.isOk()) {
    index_ = h;
  } else {
    // index_ stays the header the old mapping holds; the next refresh maps the new records.
    log::warning("{}: append of UIDs {}..{} is stored; mapping it failed: {}", dir_,
                 out.front().uid, out.back().uid, mapped.toString());
  }
  closeAfterCommit(*index_file);
  return out;
}

// The journaled round (docs/formats/journal.md, "Commit"): one append record naming the
// records just written and where each message's bytes are, then the journal's shared
// fdatasync. The files, cache, index and change log wait for the checkpoint.
// The mailbox's lock is not held across the flush (issue 23: a person's SELECT or STORE must
// not wait for someone else's delivery to reach the disk): readers meanwhile see the mailbox
// as before the append (the tail is unsettled, loadIndexHeader), and a writer of this
// process that meets the tail waits for the same flush (settleTail). The lock is taken again
// to settle; `*tail` tells whether the tail is still this append's to settle.
Status Mailbox::commitToJournal(const IndexHeader& h, const std::vector<IndexRecord>& records,
                                std::span<const AppendRequest> requests,
                                io::FileLock& held, io::WritableFile& index_file,
                                JournalTail* tail) {
  *tail = JournalTail::kOurs;
  JournalAppend ja;
  ja.mailbox_dir = journal_dir_;
  ja.unique_id = header_.unique_id;
  ja.uidvalidity = h.uidvalidity;
  ja.generation = h.generation;
  ja.first_position = h.prev_num_records;
  std::vector<JournalRef> refs;
  for (size_t i = 0; i < records.size(); ++i) {
    ja.entries.push_back({records[i], 0});
    refs.push_back(requests[i].message->journal_ref);
  }
  auto lsn = journal_->writeAppend(
      std::move(ja), refs,
      [&](size_t i) { return env_.readFile(messagePath(records[i].uid)); }, dir_);
  if (!lsn.ok()) return lsn.status();
  journal_->beginTail(dir_, *lsn);
  held = io::FileLock();
  Status synced = journal_->sync(*lsn);
  Status relocked = lock(io::LockMode::kExclusive, &held);
  journal_->endTail(dir_);  // under the lock again: nobody sees the tail in between
  if (!relocked.isOk()) {
    // Cannot happen short of a broken lock file; the tail then stays unsettled, and whoever
    // writes next settles it from the files (or rolls it back), as after a crash.
    log::error("{}: append of UIDs {}..{}: lock not taken again to settle it: {}", dir_,
               records.front().uid, records.back().uid, relocked.toString());
    *tail = JournalTail::kUnlocked;
    return synced;
  }
  // Whether the tail is still this append's and unsettled: the header on disk now.
  auto now = index_file.pread(0, kIndexHeaderSize);
  if (!now.ok()) return synced.isOk() ? now.status() : synced;
  auto disk = decodeIndexHeader(*now);
  if (!disk.ok()) return Status::corruption(path(kIndexFileName) + ": " + disk.status().message());
  const bool ours = disk->prev_num_records == h.prev_num_records &&
                    disk->num_records == h.num_records && disk->tail_crc == h.tail_crc;
  if (!ours) *tail = JournalTail::kSettledByOther;
  return synced;
}

Status Mailbox::syncFileAt(const std::string& file) {
  auto f = env_.openWritable(file, io::Env::OpenMode::kAppend);
  if (!f.ok()) return f.status();
  Status st = (*f)->sync();
  Status cl = (*f)->close();
  return st.isOk() ? cl : st;
}

Status Mailbox::writeMessageFile(const StagedMessage& m, const std::string& target) {
  // A file already there is debris of an append that never committed: replaced. It is rare
  // (a crash between the link and the commit), so it is removed only when the link or the
  // create meets it, not with an unlink before every delivery (issue 23: system calls).
  auto clear = [&]() -> Status {
    Status gone = env_.removeFile(target);
    return gone.code() == base::Code::kNotFound ? Status::ok() : gone;
  };
  {
    std::lock_guard<std::mutex> g(m.first_copy->mu);
    if (!m.first_copy->path.empty()) {
      Status linked = env_.linkFile(m.first_copy->path, target);
      if (linked.code() == base::Code::kExists) {
        DARIUS_RETURN_IF_ERROR(clear());
        linked = env_.linkFile(m.first_copy->path, target);
      }
      if (linked.isOk()) return Status::ok();
      // Gone meanwhile (expunged and purged), or on another filesystem: write it again.
    }
  }
  auto w = env_.openWritable(target, io::Env::OpenMode::kCreateNew);
  if (!w.ok() && w.status().code() == base::Code::kExists) {
    DARIUS_RETURN_IF_ERROR(clear());
    w = env_.openWritable(target, io::Env::OpenMode::kCreateNew);
  }
  if (!w.ok()) return w.status();
  DARIUS_RETURN_IF_ERROR((*w)->append(*m.bytes));
  DARIUS_RETURN_IF_ERROR((*w)->close());
  std::lock_guard<std::mutex> g(m.first_copy->mu);
  if (m.first_copy->path.empty()) m.first_copy->path = target;
  return Status::ok();
}

void Mailbox::closeAfterCommit(io::WritableFile& index) {
  if (Status closed = index.close(); !closed.isOk()) {
    log::warning("{}: change is durable; closing the index failed: {}", dir_,
                 closed.toString());
  }
}

Result<std::vector<FlagResult>> Mailbox::store(std::span<const FlagChange> changes) {
  if (isReadOnly()) return viewIsReadOnly();
  std::vector<FlagResult> out;
  io::FileLock l;
  DARIUS_RETURN_IF_ERROR(lock(io::LockMode::kExclusive, &l));
  DARIUS_RETURN_IF_ERROR(remapIndex());
  DARIUS_RETURN_IF_ERROR(loadIndexHeader());
  DARIUS_RETURN_IF_ERROR(settleTail());
  auto disk_header = readMailboxHeader(env_, dir_);
  if (!disk_header.ok()) return disk_header.status();
  MailboxHeader mh = std::move(*disk_header);
  size_t known_flags = mh.user_flags.size();
  IndexHeader h = index_;
  uint64_t modseq = h.highest_modseq + 1;

  auto f = env_.openWritable(path(kIndexFileName), io::Env::OpenMode::kAppend);
  if (!f.ok()) return f.status();
  bool changed_any = false;
  for (const FlagChange& c : changes) {
    FlagResult res;
    res.uid = c.uid;
    if ((c.system_flags & ~(kKnownFlagBits & ~kFlagExpunged)) != 0) {
      return Status::invalid("store: unknown system flag bits");
    }
    auto pos = findUid(c.uid);
    if (!pos.ok()) return pos.status();
    if (*pos < 0) {
      out.push_back(res);
      continue;
    }
    auto r = record(static_cast<size_t>(*pos));
    if (!r.ok()) return r.status();
    res.record = *r;
    if (!r->live()) {
      out.push_back(res);
      continue;
    }
    if (c.unchanged_since != 0 && r->modseq > c.unchanged_since) {
      res.outcome = FlagResult::Outcome::kModified;
      out.push_back(res);
      continue;
    }
    IndexRecord n = *r;
    UserFlags bits{};
    for (const std::string& k : c.keywords) {
      auto bit = userFlagBit(k, mh, c.op != FlagChange::Op::kRemove);
      if (!bit.ok()) return bit.status();
      if (*bit >= 0) bits[*bit / 64] |= uint64_t{1} << (*bit % 64);
    }
    switch (c.op) {
      case FlagChange::Op::kAdd:
        n.system_flags |= c.system_flags;
        for (int w = 0; w < 2; ++w) n.user_flags[w] |= bits[w];
        break;
      case FlagChange::Op::kRemove:
        n.system_flags &= ~c.system_flags;
        for (int w = 0; w < 2; ++w) n.user_flags[w] &= ~bits[w];
        break;
      case FlagChange::Op::kReplace:
        n.system_flags = (c.system_flags & ~c.keep_system) | (r->system_flags & c.keep_system);
        n.user_flags = bits;
        break;
    }
    if (n.system_flags == r->system_flags && n.user_flags == r->user_flags) {
      res.outcome = FlagResult::Outcome::kUnchanged;
      out.push_back(res);
      continue;
    }
    if (mh.user_flags.size() != known_flags) {
      // New keyword names are durable before a record uses their bits.
      DARIUS_RETURN_IF_ERROR(writeMailboxHeader(env_, dir_, mh));
      known_flags = mh.user_flags.size();
    }
    n.modseq = modseq;
    accountRecord(h, *r, -1);
    accountRecord(h, n, +1);
    DARIUS_RETURN_IF_ERROR((*f)->pwrite(
        kIndexHeaderSize + static_cast<uint64_t>(*pos) * kIndexRecordSize, encodeIndexRecord(n)));
    changed_any = true;
    res.outcome = FlagResult::Outcome::kChanged;
    res.record = n;
    out.push_back(res);
  }
  header_ = mh;
  if (!changed_any) {
    closeAfterCommit(**f);
    return out;
  }
  h.highest_modseq = modseq;
  h.prev_num_records = h.num_records;  // the last append is long durable
  h.tail_crc = 0;
  DARIUS_RETURN_IF_ERROR(writeIndexHeader(**f, h, /*sync=*/false));
  DARIUS_RETURN_IF_ERROR(syncAfterUnlock(l, **f));
  // The change is durable: a close error now must neither report it as failed nor keep it
  // out of the change log, which replicas and IDLE follow.
  closeAfterCommit(**f);
  std::vector<std::pair<uint32_t, uint64_t>> logged;
  for (const FlagResult& r : out) {
    if (r.outcome == FlagResult::Outcome::kChanged) logged.emplace_back(r.uid, modseq);
  }
  noteChange(static_cast<int>(ChangeType::kFlags), logged);
  return out;
}

// Issue 23: a STORE or EXPUNGE used to fsync the index under the exclusive lock, so every
// SELECT, refresh and delivery of the mailbox waited for someone else's flush. The records
// and header are written under the lock, and the lock is released before the flush: the
// caller answers (STORE OK, EXPUNGE) only after it, so what was acknowledged is durable, as
// before. What changes is that another session may see the change during the flush, before
// it is durable (it could already read the rewritten records through its mapping before);
// a power cut in that window loses a change nobody was told had succeeded. Concurrent
// writers stay ordered by the lock: a later change's flush covers the pages of an earlier
// one, and a rewrite (compact, purge) that copies the records syncs its new file itself.
Status Mailbox::syncAfterUnlock(io::FileLock& held, io::WritableFile& index) {
  held.unlock();
  return index.sync();
}

Result<uint64_t> Mailbox::updatePrivate(const PrivateUpdate& update) {
  if (isReadOnly()) return viewIsReadOnly();
  io::FileLock l;
  DARIUS_RETURN_IF_ERROR(lock(io::LockMode::kExclusive, &l));
  DARIUS_RETURN_IF_ERROR(remapIndex());
  DARIUS_RETURN_IF_ERROR(loadIndexHeader());
  DARIUS_RETURN_IF_ERROR(settleTail());
  const uint64_t modseq = index_.highest_modseq + 1;
  bool reserved = false;
  auto reserve = [&]() -> Status {
    if (reserved) return Status::ok();
    IndexHeader h = index_;
    h.highest_modseq = modseq;
    h.prev_num_records = h.num_records;  // the last append is settled above
    h.tail_crc = 0;
    auto f = env_.openWritable(path(kIndexFileName), io::Env::OpenMode::kAppend);
    if (!f.ok()) return f.status();
    // In place (one sector) and synced: the caller commits state that uses the modseq next.
    DARIUS_RETURN_IF_ERROR(writeIndexHeader(**f, h));
    closeAfterCommit(**f);
    reserved = true;
    return Status::ok();
  };
  auto changed = update(modseq, reserve);
  if (!changed.ok()) return changed.status();
  if (!reserved) return uint64_t{0};
  l.unlock();
  std::vector<std::pair<uint32_t, uint64_t>> logged;
  logged.reserve(changed->size());
  for (uint32_t uid : *changed) logged.emplace_back(uid, modseq);
  noteChange(static_cast<int>(ChangeType::kFlags), logged);
  return modseq;
}

Result<uint64_t> Mailbox::expunge(std::span<const uint32_t> uids, QuotaUsage* removed) {
  if (isReadOnly()) return viewIsReadOnly();
  io::FileLock l;
  DARIUS_RETURN_IF_ERROR(lock(io::LockMode::kExclusive, &l));
  DARIUS_RETURN_IF_ERROR(remapIndex());
  DARIUS_RETURN_IF_ERROR(loadIndexHeader());
  DARIUS_RETURN_IF_ERROR(settleTail());
  IndexHeader h = index_;
  uint64_t modseq = h.highest_modseq + 1;
  std::set<uint32_t> wanted(uids.begin(), uids.end());
  const int64_t now = clock_ ? clock_() : static_cast<int64_t>(::time(nullptr));
  auto f = env_.openWritable(path(kIndexFileName), io::Env::OpenMode::kAppend);
  if (!f.ok()) return f.status();
  bool any = false;
  std::vector<std::pair<uint32_t, uint64_t>> logged;
  for (uint32_t uid : wanted) {
    auto pos = findUid(uid);
    if (!pos.ok()) return pos.status();
    if (*pos < 0) continue;
    auto r = record(static_cast<size_t>(*pos));
    if (!r.ok()) return r.status();
    if (!r->live()) continue;
    IndexRecord n = *r;
    accountRecord(h, n, -1);
    if (removed != nullptr) {
      (*removed)[QuotaResource::kStorage] += n.size;
      (*removed)[QuotaResource::kMessage] += 1;
    }
    n.system_flags |= kFlagExpunged;
    n.modseq = modseq;
    n.expunged_at = now;
    ++h.num_expunged;
    DARIUS_RETURN_IF_ERROR((*f)->pwrite(
        kIndexHeaderSize + static_cast<uint64_t>(*pos) * kIndexRecordSize, encodeIndexRecord(n)));
    any = true;
    logged.emplace_back(uid, modseq);
  }
  if (!any) {
    DARIUS_RETURN_IF_ERROR((*f)->close());
    return index_.highest_modseq;
  }
  h.highest_modseq = modseq;
  h.prev_num_records = h.num_records;
  h.tail_crc = 0;
  DARIUS_RETURN_IF_ERROR(writeIndexHeader(**f, h, /*sync=*/false));
  DARIUS_RETURN_IF_ERROR(syncAfterUnlock(l, **f));
  closeAfterCommit(**f);  // durable from here: as in store()
  noteChange(static_cast<int>(ChangeType::kExpunge), logged);
  if (!keep_expunged_) {
    // expunge_mode: immediate. The expunge is durable, so the files go now; a crash before
    // an unlink leaves a file whose record says expunged, which the next rewrite drops.
    for (const auto& [uid, m] : logged) {
      Status s = env_.removeFile(messagePath(uid));
      if (!s.isOk() && s.code() != base::Code::kNotFound) {
        log::warning("{}: expunge done; removing {}: {}", dir_, messagePath(uid), s.toString());
      }
    }
  }
  if (h.num_expunged >= std::max(kCompactMinExpunged, h.num_records / 4)) {
    // Reclaiming space is not the expunge: a failure leaves the records for the next one.
    if (Status c = compact(); !c.isOk()) {  // takes the lock itself
      log::warning("{}: expunge done; compacting the index failed: {}", dir_, c.toString());
    }
  }
  return modseq;
}

}  // namespace darius::mailbox

namespace darius::mailbox {

Result<uint32_t> Mailbox::claimRecent(uint32_t up_to) {
  if (isReadOnly()) return viewIsReadOnly();
  io::FileLock l;
  DARIUS_RETURN_IF_ERROR(lock(io::LockMode::kExclusive, &l));
  DARIUS_RETURN_IF_ERROR(remapIndex());
  DARIUS_RETURN_IF_ERROR(loadIndexHeader());
  DARIUS_RETURN_IF_ERROR(settleTail());
  IndexHeader h = index_;
  uint32_t old = h.recent_uid;
  // Never past what exists: a UID not yet given out must stay claimable by whoever sees it.
  up_to = std::min(up_to, h.uidnext - 1);
  if (up_to <= old) return old;
  h.recent_uid = up_to;
  // The header alone, in place (one sector), and not synced: if a crash loses it, the
  // messages are shown as recent once more, which \Recent allows (a hint, RFC 3501 §2.3.2).
  // Every other field is as durable as before (the tail is settled above), so the write
  // cannot make anything appear that is not on disk. A SELECTed IMAP4rev1 session claims
  // after every new message: a sync here was one more flush per delivery.
  h.prev_num_records = h.num_records;
  h.tail_crc = 0;
  auto f = env_.openWritable(path(kIndexFileName), io::Env::OpenMode::kAppend);
  if (!f.ok()) return f.status();
  DARIUS_RETURN_IF_ERROR(writeIndexHeader(**f, h, /*sync=*/false));
  DARIUS_RETURN_IF_ERROR((*f)->close());
  return old;
}

Result<size_t> Mailbox::countAbove(uint32_t uid) const {
  size_t lo = 0, hi = index_.num_records;
  while (lo < hi) {  // first record with a UID above `uid`
    size_t mid = lo + (hi - lo) / 2;
    auto r = record(mid);
    if (!r.ok()) return r.status();
    if (r->uid <= uid) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  size_t n = 0;
  for (size_t i = lo; i < index_.num_records; ++i) {
    auto r = record(i);
    if (!r.ok()) return r.status();
    if (r->live()) ++n;
  }
  return n;
}

}  // namespace darius::mailbox
