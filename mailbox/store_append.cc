// Store delivery with group commit, copy and move (hard links), and the IMAP rename of INBOX.
#include <algorithm>
#include <deque>

#include "mailbox/cache_fill.h"
#include "mailbox/store.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

// What a batch of requests charges to its root.
QuotaUsage chargeOf(std::span<const AppendRequest> requests) {
  QuotaUsage u;
  for (const AppendRequest& r : requests) {
    u[QuotaResource::kStorage] += r.message->size;
    u[QuotaResource::kMessage] += 1;
  }
  return u;
}

Status overQuota(const MailboxName& root, QuotaResource r) {
  return Status::overQuota("quota root " + root.toString() + ": " +
                           std::string(quotaResourceName(r)) + " limit reached");
}

}  // namespace

struct Store::Waiter {
  std::span<const AppendRequest> requests;
  Result<std::vector<Appended>> result = Status::temporary("not yet committed");
  bool done = false;
};

struct Store::AppendQueue {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Waiter*> waiting;
  bool leader = false;
  size_t users = 0;  // callers inside append() for this mailbox; guarded by queues_mu_
};

Result<StagedMessage> Store::stage(const Partition& partition, std::string_view bytes,
                                  StageSync sync) {
  DeliveryJournal* j = sync == StageSync::kDeferred ? journal(partition.name) : nullptr;
  if (j != nullptr) {
    // No stage file: the journal holds the bytes, and its fdatasync at the append is the
    // message's durable point (delivery_journal.h); the append writes the UID file.
    StagedMessage m = describeMessage(bytes);
    DARIUS_ASSIGN_OR_RETURN(JournalRef ref, j->writeMessage(m.guid, bytes));
    m.journal = j;
    m.journal_ref = ref;
    return m;
  }
  io::SyncBarrier* barrier = syncBarrier(partition.name);
  const uint64_t mark = barrier ? barrier->mark() : StagedMessage::kNoSyncMark;
  DARIUS_ASSIGN_OR_RETURN(StagedMessage m, stageMessage(env_, partition.stageDir(), bytes, sync));
  m.sync_mark = mark;
  m.sync_barrier = barrier;
  return m;
}

Result<std::vector<Appended>> Store::appendOnce(const MailboxName& name,
                                                std::span<const AppendRequest> requests,
                                                bool* wrote, bool* retry) {
  *wrote = false;
  *retry = false;
  // The usual case: a mailbox that is listed and whole. Its append loads and checks
  // everything under its own exclusive lock, so the handle skips open()'s shared-lock pass.
  auto entry = list_->lookup(name);
  if (!entry.ok()) return entry.status();
  if ((entry->flags & (MailboxEntry::kDeleted | MailboxEntry::kNoSelect)) != 0) {
    return Status::notFound(name.toString() + ": no such mailbox");
  }
  DARIUS_ASSIGN_OR_RETURN(std::string dir, directoryOf(name, *entry));
  auto m = Mailbox::openForAppend(env_, dir);
  if (!m.ok()) {
    *retry = m.status().code() == base::Code::kNotFound;
    return m.status();
  }
  (*m)->setChangeLog(changeLog(entry->partition));
  (*m)->setSyncBarrier(barrierFor(entry->partition, dir));
  attachJournal(**m, entry->partition);
  (*m)->setCompactPolicy(options_.compact_policy);
  (*m)->setKeepExpunged(options_.keep_expunged);
  auto done = (*m)->append(requests);
  *wrote = (*m)->appendWroteIndex();
  if (done.ok() && append_observer_) append_observer_(dir);
  const base::Code c = done.ok() ? base::Code::kOk : done.status().code();
  // Missing (a namespace operation in flight) or damaged: append finds either before it
  // writes (its lock, index and settling come first), and openMailbox() waits for the one and
  // repairs the other. (A stage file gone missing fails the same way twice.) Never once index
  // records were written: that tail may still be settled and kept.
  *retry = !*wrote && (c == base::Code::kNotFound || c == base::Code::kCorruption);
  return done;
}

void Store::appendGroup(const MailboxName& name, std::span<Waiter* const> group) {
  for (int attempt = 0;; ++attempt) {
    // The root's lock is taken before the mailbox's (Mailbox::append) and held through the
    // commit: admission and the append are one critical section per root (quota_usage.h).
    auto held = lockRootOf(name, /*ns_held=*/false);
    if (!held.ok()) {
      for (Waiter* w : group) w->result = held.status();
      return;
    }
    std::vector<Waiter*> admitted;
    std::vector<AppendRequest> all;
    QuotaUsage add;
    for (Waiter* w : group) {
      // One waiter's requests (a MULTIAPPEND) are admitted together or not at all.
      QuotaUsage mine = chargeOf(w->requests);
      if (*held) {
        if (auto over = wouldExceed((*held)->limits, (*held)->usage + add, mine)) {
          w->result = overQuota((*held)->root, *over);
          continue;
        }
      }
      add += mine;
      admitted.push_back(w);
      all.insert(all.end(), w->requests.begin(), w->requests.end());
    }
    if (admitted.empty()) return;
    if (*held) {
      if (Status s = (*held)->hold.begin((*held)->usage + add); !s.isOk()) {
        for (Waiter* w : admitted) w->result = s;
        return;
      }
    }
    bool wrote = false, retry = false;
    auto done = appendOnce(name, all, &wrote, &retry);
    if (*held) (*held)->finish(done.ok(), !done.ok() && !wrote, (*held)->usage + add);
    if (!done.ok() && retry && attempt == 0) {
      // Without any root's lock (the namespace lock comes first): wait for a namespace
      // operation in flight, or repair the index; then admit again.
      held = std::optional<RootHold>();
      auto m = openMailbox(name);
      if (m.ok()) continue;
      done = m.status();
    }
    size_t at = 0;
    for (Waiter* w : admitted) {
      if (done.ok()) {
        w->result = std::vector<Appended>(
            done->begin() + static_cast<ptrdiff_t>(at),
            done->begin() + static_cast<ptrdiff_t>(at + w->requests.size()));
      } else {
        w->result = done.status();
      }
      at += w->requests.size();
    }
    return;
  }
}

Result<std::vector<Appended>> Store::append(const MailboxName& name,
                                            std::span<const AppendRequest> requests) {
  if (requests.empty()) return std::vector<Appended>{};
  for (const AppendRequest& r : requests) {
    // Checked here so that one caller's bad request cannot fail a whole group.
    if (r.message == nullptr || (r.system_flags & ~(kKnownFlagBits & ~kFlagExpunged)) != 0) {
      return Status::invalid("append: bad message or flags");
    }
  }
  std::shared_ptr<AppendQueue> q;
  {
    std::lock_guard<std::mutex> g(queues_mu_);
    auto& slot = queues_[name.key()];
    if (!slot) slot = std::make_shared<AppendQueue>();
    q = slot;
    ++q->users;
  }
  Waiter me;
  me.requests = requests;
  {
    std::unique_lock<std::mutex> lk(q->mu);
    q->waiting.push_back(&me);
    while (!me.done) {
      if (q->leader) {  // someone commits now; our batch goes with the next group
        q->cv.wait(lk);
        continue;
      }
      // Leader: take everything queued now, commit it with one set of fsyncs.
      q->leader = true;
      std::vector<Waiter*> group(q->waiting.begin(), q->waiting.end());
      q->waiting.clear();
      lk.unlock();
      appendGroup(name, group);
      lk.lock();
      for (Waiter* w : group) w->done = true;
      q->leader = false;
      q->cv.notify_all();
    }
  }
  {
    std::lock_guard<std::mutex> g(queues_mu_);
    if (--q->users == 0) queues_.erase(name.key());
  }
  return std::move(me.result);
}

// The messages of a copy: the source's files stand in for staged ones.
struct CopySources {
  std::vector<StagedMessage> files;
  std::vector<IndexRecord> records;
  std::vector<AppendRequest> requests;
};

namespace {

// Where a source message's file, record and cache entry come from.
void addSource(CopySources& s, Mailbox& from, const IndexRecord& r, Result<CacheEntry> cached) {
  // The source's own file is the "staged" message: append() links it into the target.
  StagedMessage m;
  m.path = from.messagePath(r.uid);
  m.size = r.size;
  m.header_size = r.header_size;
  m.guid = r.guid;
  m.cache = cached.ok() ? std::move(*cached) : CacheEntry{};
  s.files.push_back(std::move(m));
  s.records.push_back(r);
}

// The append requests for the sources gathered, with the flags `keep` lets through.
Status finishSources(CopySources& s, Mailbox& from, const CopyFlags& keep) {
  for (size_t i = 0; i < s.files.size(); ++i) {
    StagedMessage& m = s.files[i];
    if (m.cache == CacheEntry{}) {  // no usable cache record: parse the file
      DARIUS_ASSIGN_OR_RETURN(std::string bytes, from.env().readFile(m.path));
      m.cache = buildCacheEntry(bytes);
    }
  }
  std::vector<AppendRequest>& requests = s.requests;
  requests.resize(s.files.size());
  for (size_t i = 0; i < s.files.size(); ++i) {
    const IndexRecord& r = s.records[i];
    requests[i].message = &s.files[i];
    requests[i].internal_date = r.internal_date;
    requests[i].tz_offset_minutes = r.tz_offset_minutes;
    requests[i].system_flags = r.system_flags & ~kFlagExpunged & keep.system;
    for (size_t b = 0; keep.keywords && b < from.header().user_flags.size(); ++b) {
      if (r.hasUserFlag(static_cast<int>(b))) {
        requests[i].keywords.push_back(from.header().user_flags[b]);
      }
    }
  }
  return Status::ok();
}

std::vector<uint32_t> sortedUnique(std::span<const uint32_t> uids) {
  std::vector<uint32_t> sorted(uids.begin(), uids.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  return sorted;
}

Result<CopySources> copySources(Mailbox& from, std::span<const uint32_t> uids,
                                const CopyFlags& keep) {
  CopySources s;
  for (uint32_t uid : sortedUnique(uids)) {
    DARIUS_ASSIGN_OR_RETURN(int64_t pos, from.findUid(uid));
    if (pos < 0) continue;
    DARIUS_ASSIGN_OR_RETURN(IndexRecord r, from.record(static_cast<size_t>(pos)));
    if (!r.live()) continue;
    addSource(s, from, r, from.cache(r));
  }
  DARIUS_RETURN_IF_ERROR(finishSources(s, from, keep));
  return s;
}

// The expunged messages `uids` of `from` whose files are still there (expire removes them).
Result<CopySources> expungedSources(Mailbox& from, std::span<const uint32_t> uids,
                                    CopyFlags keep) {
  // Back without \Deleted, or the next EXPUNGE would take it again.
  keep.system &= ~kFlagDeleted;
  CopySources s;
  std::vector<uint32_t> wanted = sortedUnique(uids);
  DARIUS_ASSIGN_OR_RETURN(std::vector<IndexRecord> held, from.expungedRecords());
  std::string cache;
  if (auto c = from.env().readFile(from.dir() + "/" + std::string(kExpungedCacheFileName));
      c.ok()) {
    cache = std::move(*c);
  }
  for (const IndexRecord& r : held) {
    if (!std::binary_search(wanted.begin(), wanted.end(), r.uid)) continue;
    DARIUS_ASSIGN_OR_RETURN(bool there, from.env().fileExists(from.messagePath(r.uid)));
    if (!there) continue;
    Result<CacheEntry> cached = Status::notFound("no cache record");
    DARIUS_ASSIGN_OR_RETURN(int64_t pos, from.findUid(r.uid));
    if (pos >= 0) {
      // Still marked in the index: its cache record is in the live cache.
      DARIUS_ASSIGN_OR_RETURN(IndexRecord in_index, from.record(static_cast<size_t>(pos)));
      cached = from.cache(in_index);
    } else if (std::string rec = cacheRecordAt(cache, r.cache_offset, guidBytes(r.guid));
               !rec.empty()) {
      cached = decodeCacheRecordOf(rec, guidBytes(r.guid));
    }
    addSource(s, from, r, std::move(cached));
  }
  DARIUS_RETURN_IF_ERROR(finishSources(s, from, keep));
  return s;
}

}  // namespace

Result<CopyResult> Store::copy(Mailbox& from, std::span<const uint32_t> uids,
                               const MailboxName& to_name, Mailbox& to, const CopyFlags& keep) {
  DARIUS_ASSIGN_OR_RETURN(CopySources src, copySources(from, uids, keep));
  return appendCopies(src, to_name, to);
}

Result<CopyResult> Store::unexpunge(Mailbox& from, std::span<const uint32_t> uids,
                                    const MailboxName& to_name, Mailbox& to,
                                    const CopyFlags& keep) {
  DARIUS_ASSIGN_OR_RETURN(CopySources src, expungedSources(from, uids, keep));
  return appendCopies(src, to_name, to);
}

Result<CopyResult> Store::appendCopies(CopySources& src, const MailboxName& to_name, Mailbox& to) {
  CopyResult out;
  out.target_uidvalidity = to.header().uidvalidity;
  if (src.requests.empty()) return out;
  // As a delivery: checked and appended under the target root's lock, all or nothing.
  DARIUS_ASSIGN_OR_RETURN(std::optional<RootHold> held, lockRootOf(to_name, /*ns_held=*/false));
  const QuotaUsage add = chargeOf(src.requests);
  if (held) {
    if (auto over = wouldExceed(held->limits, held->usage, add)) return overQuota(held->root, *over);
    DARIUS_RETURN_IF_ERROR(held->hold.begin(held->usage + add));
  }
  auto appended = to.append(src.requests);
  if (held) held->finish(appended.ok(), !appended.ok() && !to.appendWroteIndex(), held->usage + add);
  if (!appended.ok()) return appended.status();
  if (append_observer_) append_observer_(to.dir());
  for (size_t i = 0; i < appended->size(); ++i) {
    out.uids.push_back({src.records[i].uid, (*appended)[i].uid});
  }
  return out;
}

Result<CopyResult> Store::move(const MailboxName& from_name, Mailbox& from,
                               std::span<const uint32_t> uids, const MailboxName& to_name,
                               Mailbox& to, const CopyFlags& keep) {
  DARIUS_ASSIGN_OR_RETURN(std::optional<MailboxName> from_root, quotaRootOf(from_name));
  DARIUS_ASSIGN_OR_RETURN(std::optional<MailboxName> to_root, quotaRootOf(to_name));
  if (!from_root || from_root != to_root) {
    // Across roots: the target's root takes the copies (and may refuse them), then the
    // source's gives the originals back; one root's lock at a time (quota_usage.h).
    DARIUS_ASSIGN_OR_RETURN(CopyResult out, copy(from, uids, to_name, to, keep));
    std::vector<uint32_t> moved;
    for (const CopiedUid& c : out.uids) moved.push_back(c.from);
    if (!moved.empty()) DARIUS_RETURN_IF_ERROR(expunge(from_name, from, moved).status());
    return out;
  }
  // Within one root the usage ends where it began: copy and expunge under one hold, no check.
  CopyResult out;
  out.target_uidvalidity = to.header().uidvalidity;
  DARIUS_ASSIGN_OR_RETURN(CopySources src, copySources(from, uids, keep));
  if (src.requests.empty()) return out;
  DARIUS_ASSIGN_OR_RETURN(std::optional<RootHold> held, lockRootOf(to_name, /*ns_held=*/false));
  if (!held || held->root != *from_root) {
    // Coverage moved while we looked (a SETQUOTA or rename): take the two-root path.
    held.reset();
    return move(from_name, from, uids, to_name, to, keep);
  }
  const QuotaUsage add = chargeOf(src.requests);
  DARIUS_RETURN_IF_ERROR(held->hold.begin(held->usage + add));
  auto appended = to.append(src.requests);
  if (!appended.ok()) {
    held->finish(false, !to.appendWroteIndex(), held->usage);
    return appended.status();
  }
  std::vector<uint32_t> moved;
  for (size_t i = 0; i < appended->size(); ++i) {
    out.uids.push_back({src.records[i].uid, (*appended)[i].uid});
    moved.push_back(src.records[i].uid);
  }
  QuotaUsage removed;
  auto gone = from.expunge(moved, &removed);
  // A failed expunge leaves the record pending: the copies are in, the originals may be too.
  held->finish(gone.ok(), false, held->usage + add - removed);
  if (!gone.ok()) return gone.status();
  held.reset();  // the root's lock is released before the observer hears of it
  noteExpunged(from_name, removed);
  return out;
}

Result<uint64_t> Store::expunge(const MailboxName& name, Mailbox& mailbox,
                                std::span<const uint32_t> uids) {
  DARIUS_ASSIGN_OR_RETURN(std::optional<RootHold> held, lockRootOf(name, /*ns_held=*/false));
  // What leaves is known only once the index is locked; until then the record says pending.
  if (held) DARIUS_RETURN_IF_ERROR(held->hold.begin(held->usage));
  QuotaUsage removed;
  auto done = mailbox.expunge(uids, &removed);
  if (held) held->finish(done.ok(), false, held->usage - removed);
  held.reset();
  if (done.ok()) noteExpunged(name, removed);
  return done;
}

void Store::noteExpunged(const MailboxName& name, const QuotaUsage& removed) {
  // Only a size: the observer must stay off the expunge's hot path (no scan, no lock here).
  if (expunge_observer_ && options_.keep_expunged && removed[QuotaResource::kStorage] > 0) {
    expunge_observer_(name, removed[QuotaResource::kStorage]);
  }
}

Result<MailboxEntry> Store::renameInbox(const MailboxName& inbox, const MailboxName& to) {
  if (!inbox.isInbox()) return Status::invalid(inbox.toString() + " is not an INBOX");
  DARIUS_ASSIGN_OR_RETURN(OpenMailbox src, openMailbox(inbox));
  CreateOptions co;
  co.partition = src.entry.partition;
  co.acl = src.entry.acl;
  co.quota_root = src.entry.quota_root;
  DARIUS_ASSIGN_OR_RETURN(MailboxEntry entry, create(to, co));
  DARIUS_ASSIGN_OR_RETURN(OpenMailbox dst, openMailbox(to));
  DARIUS_RETURN_IF_ERROR(src.mailbox->refresh());
  std::vector<uint32_t> uids;
  for (size_t i = 0; i < src.mailbox->recordCount(); ++i) {
    DARIUS_ASSIGN_OR_RETURN(IndexRecord r, src.mailbox->record(i));
    if (r.live()) uids.push_back(r.uid);
  }
  // Copy first, expunge after: a crash in between leaves the messages in both mailboxes,
  // never in neither.
  DARIUS_ASSIGN_OR_RETURN(CopyResult moved, move(inbox, *src.mailbox, uids, to, *dst.mailbox));
  return entry;
}

}  // namespace darius::mailbox
