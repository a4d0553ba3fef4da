// The last append of a mailbox after a crash: settled (its syncs redone, the header marked) when
// everything it committed is intact, rolled back when something is not. Runs under the
// exclusive lock on a freshly loaded header, before any write (docs/formats/index.md,
// "Commit" and "Crash safety").
#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "mailbox/mailbox.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

Status Mailbox::settleTail() {
  if (tail_suspect_) return repairTornAppend();
  if (!tailUnsettled()) return Status::ok();
  // An append writes its records and header, then syncs everything at once, then marks the
  // header settled (prev_num_records = num_records) without a sync. An unsettled tail is an
  // append whose round of syncs may not have finished: its records are durable, but the
  // message files, their directory entries or cache records they name may not be. Each is
  // checked against the record; if all hold, the round may have finished (and the caller
  // been answered), so the append stays and its syncs are redone. If one does not, the round
  // never finished, nothing was acknowledged, and the append is rolled back like a torn one.
  const uint32_t from = index_.prev_num_records, to = index_.num_records;
  std::vector<uint32_t> uids;
  bool intact = true;
  for (uint32_t i = from; i < to && intact; ++i) {
    DARIUS_ASSIGN_OR_RETURN(IndexRecord r, record(i));
    uids.push_back(r.uid);
    auto bytes = env_.readFile(messagePath(r.uid));
    if (!bytes.ok()) {
      if (bytes.status().code() != base::Code::kNotFound) return bytes.status();
      intact = false;
    } else {
      intact = bytes->size() == r.size && sha1Of(*bytes) == r.guid;
    }
    if (intact && r.cache_offset != 0) intact = cache(r).ok();
  }
  if (!intact) {
    index_.num_records = from;
    tail_suspect_ = true;
    return repairTornAppend();
  }
  std::vector<std::unique_ptr<io::WritableFile>> files;
  std::vector<std::function<Status()>> round;
  for (uint32_t uid : uids) {
    auto f = env_.openWritable(messagePath(uid), io::Env::OpenMode::kAppend);
    if (!f.ok()) return f.status();
    io::WritableFile* file = f->get();
    round.push_back([file] { return file->sync(); });
    files.push_back(std::move(*f));
  }
  auto c = env_.openWritable(path(kCacheFileName), io::Env::OpenMode::kAppend);
  if (!c.ok()) return c.status();
  io::WritableFile* cache_file = c->get();
  round.push_back([cache_file] { return cache_file->sync(); });
  files.push_back(std::move(*c));
  round.push_back([this] { return env_.syncDir(dir_); });
  DARIUS_RETURN_IF_ERROR(env_.runConcurrently(round));
  for (auto& f : files) DARIUS_RETURN_IF_ERROR(f->close());
  auto f = env_.openWritable(path(kIndexFileName), io::Env::OpenMode::kAppend);
  if (!f.ok()) return f.status();
  IndexHeader h = index_;
  h.prev_num_records = h.num_records;
  h.tail_crc = 0;
  DARIUS_RETURN_IF_ERROR(writeIndexHeader(**f, h));
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
