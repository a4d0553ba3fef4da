// The expunged view of a mailbox (mailbox.h, openExpungedView; docs/design/expunge.md): what
// IMAP shows as `.EXPUNGED/<folder>`. A Mailbox in this mode answers the read calls from the
// records its live mailbox holds expunged, so SELECT, FETCH, SEARCH and COPY (undelete) work
// on it unchanged, and refuses every write.
#include <sys/stat.h>

#include "mailbox/mailbox.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

Result<std::unique_ptr<Mailbox>> Mailbox::openExpungedView(io::Env& env, const std::string& dir) {
  DARIUS_ASSIGN_OR_RETURN(std::unique_ptr<Mailbox> live, open(env, dir));
  std::unique_ptr<Mailbox> view(new Mailbox(env, dir));
  view->live_ = std::move(live);
  DARIUS_RETURN_IF_ERROR(view->refreshView());
  return view;
}

Result<std::unique_ptr<Mailbox>> Mailbox::openReadOnly(io::Env& env, const std::string& dir) {
  DARIUS_ASSIGN_OR_RETURN(std::unique_ptr<Mailbox> m, open(env, dir));
  m->read_only_ = true;
  return m;
}

Status Mailbox::viewIsReadOnly() {
  return Status::permission("a view of the expunged or deleted area is read-only");
}

Status Mailbox::refreshView() {
  DARIUS_RETURN_IF_ERROR(live_->refresh());
  // A view in IDLE or NOOP refreshes often: read the expunged files again only when the live
  // index (an expunge, a rewrite) or one of the files (a purge renames them in) changed.
  auto statOf = [&](std::string_view name) -> std::pair<uint64_t, uint64_t> {
    struct stat st {};
    if (::stat(path(name).c_str(), &st) != 0) return {0, 0};
    return {static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_size)};
  };
  const ViewStamp stamp{live_->index().generation, live_->index().highest_modseq,
                        statOf(kExpungedFileName), statOf(kExpungedCacheFileName)};
  if (view_stamp_ && *view_stamp_ == stamp) return Status::ok();
  DARIUS_ASSIGN_OR_RETURN(std::vector<IndexRecord> records, live_->expungedRecords());
  // Read after the records: a purge renames the cache before the index, so these bytes are at
  // least as new as the records, and a record whose offset no longer matches fails its GUID
  // check and is read from the file.
  auto cache = env_.readFile(path(kExpungedCacheFileName));
  if (cache.ok()) {
    view_cache_ = std::move(*cache);
  } else if (cache.status().code() == base::Code::kNotFound) {
    view_cache_.clear();
  } else {
    return cache.status();
  }
  const IndexHeader& live = live_->index();
  IndexHeader h;
  h.uidvalidity = live.uidvalidity;
  h.uidnext = live.uidnext;
  h.highest_modseq = live.highest_modseq;
  h.generation = live.generation;
  for (IndexRecord& r : records) {
    r.system_flags &= ~kFlagExpunged;
    accountRecord(h, r, +1);
  }
  h.num_records = static_cast<uint32_t>(records.size());
  h.prev_num_records = h.num_records;
  h.recent_uid = live.uidnext - 1;  // nothing in the bin is \Recent
  view_records_ = std::move(records);
  index_ = h;
  header_ = live_->header();
  view_stamp_ = stamp;
  return Status::ok();
}

Result<CacheEntry> Mailbox::viewCache(const IndexRecord& r) const {
  if (r.cache_offset != 0) {
    std::string rec = cacheRecordAt(view_cache_, r.cache_offset, guidBytes(r.guid));
    if (rec.empty()) return Status::notFound("no cache record");
    return decodeCacheRecordOf(rec, guidBytes(r.guid));
  }
  // Still marked in the live index: its cache record is in the live cache.
  DARIUS_ASSIGN_OR_RETURN(int64_t pos, live_->findUid(r.uid));
  if (pos < 0) return Status::notFound("no cache record");
  DARIUS_ASSIGN_OR_RETURN(IndexRecord in_index, live_->record(static_cast<size_t>(pos)));
  return live_->cache(in_index);
}

}  // namespace darius::mailbox
