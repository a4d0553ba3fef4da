// Store delivery with group commit, copy and move (hard links), and the IMAP rename of INBOX.
#include <algorithm>
#include <deque>

#include "mailbox/cache_fill.h"
#include "mailbox/store.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

struct Waiter {
  std::span<const AppendRequest> requests;
  Result<std::vector<Appended>> result = Status::temporary("not yet committed");
  bool done = false;
};

}  // namespace

struct Store::AppendQueue {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Waiter*> waiting;
  bool leader = false;
  size_t users = 0;  // callers inside append() for this mailbox; guarded by queues_mu_
};

Result<StagedMessage> Store::stage(const Partition& partition, std::string_view bytes,
                                  StageSync sync) {
  io::SyncBarrier* barrier = syncBarrier(partition.name);
  const uint64_t mark = barrier ? barrier->mark() : StagedMessage::kNoSyncMark;
  DARIUS_ASSIGN_OR_RETURN(StagedMessage m, stageMessage(env_, partition.stageDir(), bytes, sync));
  m.sync_mark = mark;
  m.sync_barrier = barrier;
  return m;
}

Result<std::vector<Appended>> Store::appendNow(const MailboxName& name,
                                               std::span<const AppendRequest> requests) {
  // The usual case: a mailbox that is listed and whole. Its append loads and checks
  // everything under its own exclusive lock, so the handle skips open()'s shared-lock pass.
  auto entry = list_->lookup(name);
  if (entry.ok() && (entry->flags & (MailboxEntry::kDeleted | MailboxEntry::kNoSelect)) == 0) {
    auto dir = directoryOf(name, *entry);
    auto m = dir.ok() ? Mailbox::openForAppend(env_, *dir) : dir.status();
    if (m.ok()) {
      (*m)->setChangeLog(changeLog(entry->partition));
      (*m)->setSyncBarrier(barrierFor(entry->partition, *dir));
      (*m)->setCompactPolicy(options_.compact_policy);
      auto done = (*m)->append(requests);
      const base::Code c = done.ok() ? base::Code::kOk : done.status().code();
      // Missing (a namespace operation in flight) or damaged: append finds either before it
      // writes (its lock, index and settling come first), and the full open below waits for
      // the one and repairs the other. (A stage file gone missing fails the same way twice.)
      // Never once index records were written: that tail may still be settled and kept.
      if ((c != base::Code::kNotFound && c != base::Code::kCorruption) ||
          (*m)->appendWroteIndex()) {
        return done;
      }
    }
  }
  DARIUS_ASSIGN_OR_RETURN(OpenMailbox m, openMailbox(name));
  return m.mailbox->append(requests);
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
      std::vector<AppendRequest> all;
      for (Waiter* w : group) all.insert(all.end(), w->requests.begin(), w->requests.end());
      auto done = appendNow(name, all);
      lk.lock();
      size_t at = 0;
      for (Waiter* w : group) {
        if (done.ok()) {
          std::vector<Appended> mine(done->begin() + static_cast<ptrdiff_t>(at),
                                     done->begin() + static_cast<ptrdiff_t>(at + w->requests.size()));
          w->result = std::move(mine);
        } else {
          w->result = done.status();
        }
        at += w->requests.size();
        w->done = true;
      }
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

Result<CopyResult> Store::copy(Mailbox& from, std::span<const uint32_t> uids, Mailbox& to) {
  CopyResult out;
  out.target_uidvalidity = to.header().uidvalidity;
  std::vector<uint32_t> sorted(uids.begin(), uids.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());

  std::vector<StagedMessage> sources;
  std::vector<IndexRecord> records;
  for (uint32_t uid : sorted) {
    DARIUS_ASSIGN_OR_RETURN(int64_t pos, from.findUid(uid));
    if (pos < 0) continue;
    DARIUS_ASSIGN_OR_RETURN(IndexRecord r, from.record(static_cast<size_t>(pos)));
    if (!r.live()) continue;
    // The source's own file is the "staged" message: append() links it into the target.
    StagedMessage m;
    m.path = from.messagePath(uid);
    m.size = r.size;
    m.header_size = r.header_size;
    m.guid = r.guid;
    auto cached = from.cache(r);
    if (cached.ok()) {
      m.cache = std::move(*cached);
    } else {
      DARIUS_ASSIGN_OR_RETURN(std::string bytes, from.env().readFile(m.path));
      m.cache = buildCacheEntry(bytes);
    }
    sources.push_back(std::move(m));
    records.push_back(r);
  }
  if (sources.empty()) return out;
  std::vector<AppendRequest> requests(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    requests[i].message = &sources[i];
    requests[i].internal_date = records[i].internal_date;
    requests[i].tz_offset_minutes = records[i].tz_offset_minutes;
    requests[i].system_flags = records[i].system_flags & ~kFlagExpunged;
    for (size_t b = 0; b < from.header().user_flags.size(); ++b) {
      if (records[i].hasUserFlag(static_cast<int>(b))) {
        requests[i].keywords.push_back(from.header().user_flags[b]);
      }
    }
  }
  DARIUS_ASSIGN_OR_RETURN(auto appended, to.append(requests));
  for (size_t i = 0; i < appended.size(); ++i) {
    out.uids.push_back({records[i].uid, appended[i].uid});
  }
  return out;
}

Result<CopyResult> Store::move(Mailbox& from, std::span<const uint32_t> uids, Mailbox& to) {
  DARIUS_ASSIGN_OR_RETURN(CopyResult out, copy(from, uids, to));
  std::vector<uint32_t> moved;
  for (const CopiedUid& c : out.uids) moved.push_back(c.from);
  if (!moved.empty()) {
    auto gone = from.expunge(moved);
    if (!gone.ok()) return gone.status();
  }
  return out;
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
  DARIUS_ASSIGN_OR_RETURN(CopyResult moved, move(*src.mailbox, uids, *dst.mailbox));
  return entry;
}

}  // namespace darius::mailbox
