// Opening, refreshing and reading a mailbox; the writes are in mailbox_write.cc and
// mailbox_compact.cc.
#include "mailbox/mailbox.h"

#include <algorithm>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <vector>

#include "lib/io/atomic_file.h"
#include "lib/log/log.h"
#include "mailbox/delivery_journal.h"
#include "mailbox/change_log.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

Mailbox::~Mailbox() = default;

Status Mailbox::lock(io::LockMode mode, io::FileLock* out) const {
  auto l = io::FileLock::acquire(path(kLockFileName), mode, /*wait=*/true);
  if (!l.ok()) return l.status();
  *out = std::move(*l);
  return Status::ok();
}

Result<std::unique_ptr<Mailbox>> Mailbox::create(io::Env& env, const std::string& dir,
                                                 const MailboxHeader& header) {
  if (header.unique_id.empty() || header.uidvalidity == 0) {
    return Status::invalid("a new mailbox needs a unique id and a UIDVALIDITY");
  }
  Status made = env.createDir(dir);
  if (made.code() == base::Code::kExists) {
    // A plain directory may become a mailbox (see mailbox.h); leftovers of a create that
    // crashed before its header was written are replaced.
    auto has_header = env.fileExists(dir + "/" + std::string(kHeaderFileName));
    if (!has_header.ok()) return has_header.status();
    if (*has_header) return Status::exists(dir + ": already a mailbox");
    for (std::string_view name : {kCacheFileName, kIndexFileName}) {
      Status s = env.removeFile(dir + "/" + std::string(name));
      if (!s.isOk() && s.code() != base::Code::kNotFound) return s;
    }
  } else if (!made.isOk()) {
    return made;
  }
  // Order (docs/formats/index.md, "Creation"): cache and index durable before the header
  // file is in place (a directory without a valid header is not a mailbox, so a crash
  // part-way leaves debris that reconstruct removes, never a half mailbox). Two rounds of
  // concurrent syncs: the cache, the index, the header's temporary file and the parent
  // directory (the new directory's own name) at once; then the header's rename and the
  // directory's sync.
  IndexHeader ih;
  ih.uidvalidity = header.uidvalidity;
  ih.cache_generation = 1;
  struct File {
    std::string_view name;
    std::string bytes;
  } files[] = {{kCacheFileName, encodeCacheHeader(1)}, {kIndexFileName, encodeIndexHeader(ih)}};
  std::vector<std::unique_ptr<io::WritableFile>> written;
  std::vector<std::function<Status()>> round;
  for (const File& f : files) {
    auto w = env.openWritable(dir + "/" + std::string(f.name), io::Env::OpenMode::kCreateNew);
    if (!w.ok()) return w.status();
    DARIUS_RETURN_IF_ERROR((*w)->append(f.bytes));
    io::WritableFile* file = w->get();
    round.push_back([file] { return file->sync(); });
    written.push_back(std::move(*w));
  }
  const std::string header_path = dir + "/" + std::string(kHeaderFileName);
  const std::string header_bytes = encodeMailboxHeader(header);
  std::string header_tmp;
  round.push_back([&] {
    auto tmp = io::writeTempFile(env, header_path, header_bytes);
    if (!tmp.ok()) return tmp.status();
    header_tmp = std::move(*tmp);
    return Status::ok();
  });
  size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    round.push_back([&env, parent = dir.substr(0, slash)] { return env.syncDir(parent); });
  }
  Status synced = env.runConcurrently(round);
  for (auto& w : written) {
    Status c = w->close();
    if (synced.isOk()) synced = c;
  }
  if (!synced.isOk()) {
    if (!header_tmp.empty()) (void)env.removeFile(header_tmp);
    return synced;
  }
  DARIUS_RETURN_IF_ERROR(io::commitTempFile(env, header_tmp, header_path));  // syncs `dir`
  return open(env, dir);
}

Result<std::unique_ptr<Mailbox>> Mailbox::open(io::Env& env, const std::string& dir,
                                               DeliveryJournal* journal) {
  std::unique_ptr<Mailbox> m(new Mailbox(env, dir));
  m->journal_ = journal;
  DARIUS_RETURN_IF_ERROR(m->reloadHeaderIfReplaced());
  DARIUS_RETURN_IF_ERROR(m->refresh());
  // Only after a crash or a killed writer, or while an append of this process waits for its
  // journal flush without the lock (it settles its own tail; the view hides it meanwhile):
  // other writers settle their own appends before they unlock, and refresh() waits for them
  // (shared lock).
  const bool in_flight = journal != nullptr && journal->tailInFlight(dir).has_value();
  if (m->tail_suspect_ || (m->tailUnsettled() && !in_flight)) {
    io::FileLock l;
    DARIUS_RETURN_IF_ERROR(m->lock(io::LockMode::kExclusive, &l));
    DARIUS_RETURN_IF_ERROR(m->remapIndex());
    DARIUS_RETURN_IF_ERROR(m->loadIndexHeader());
    DARIUS_RETURN_IF_ERROR(m->settleTail());
  }
  return m;
}

Result<std::unique_ptr<Mailbox>> Mailbox::openForAppend(io::Env& env, const std::string& dir) {
  DARIUS_ASSIGN_OR_RETURN(bool there,
                          env.fileExists(dir + "/" + std::string(kHeaderFileName)));
  if (!there) return Status::notFound(dir + ": no mailbox header");
  std::unique_ptr<Mailbox> m(new Mailbox(env, dir));
  m->append_only_ = true;
  return m;
}

Status Mailbox::remapIndex() {
  std::string p = path(kIndexFileName);
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    return errno == ENOENT ? Status::notFound(p + ": no index") : Status::fromErrno(errno, p);
  }
  if (!index_fd_.valid() || static_cast<uint64_t>(st.st_ino) != index_ino_) {
    auto fd = io::openFile(p, O_RDONLY | O_CLOEXEC);
    if (!fd.ok()) return fd.status();
    index_fd_ = std::move(*fd);
    if (::fstat(index_fd_.get(), &st) != 0) return Status::fromErrno(errno, p);
    index_ino_ = static_cast<uint64_t>(st.st_ino);
    index_map_.reset();
    cache_map_.reset();  // a new index may come with a new cache (reconstruct, compact)
    cache_fd_.reset();
    // Open the cache now, while the caller holds the lock that also covers rewrites: the
    // cache descriptor then always belongs to the same rewrite as the index mapping, even if
    // another process rewrites both before this handle first reads the cache.
    auto cfd = io::openFile(path(kCacheFileName), O_RDONLY | O_CLOEXEC);
    if (cfd.ok()) cache_fd_ = std::move(*cfd);
  }
  if (index_map_.size() != static_cast<size_t>(st.st_size)) {
    auto mapped = io::MappedFile::map(index_fd_.get(), static_cast<size_t>(st.st_size), false);
    if (!mapped.ok()) return mapped.status();
    index_map_ = std::move(*mapped);
  }
  return Status::ok();
}

Status Mailbox::loadIndexHeader() {
  std::string_view v = index_map_.view();
  auto h = decodeIndexHeader(v);
  if (!h.ok()) return Status::corruption(path(kIndexFileName) + ": " + h.status().message());
  uint64_t need = kIndexHeaderSize + uint64_t{h->num_records} * kIndexRecordSize;
  tail_suspect_ = false;
  unsettled_.reset();
  if (need > v.size()) {
    tail_suspect_ = true;  // the header reached the disk, the appended records did not
  } else if (h->prev_num_records < h->num_records) {
    size_t from = kIndexHeaderSize + size_t{h->prev_num_records} * kIndexRecordSize;
    tail_suspect_ = crc32Of(v.substr(from, need - from)) != h->tail_crc;
    if (!tail_suspect_) {
      // Whole, but its round of syncs may not have finished (a writer killed, or a crash):
      // nobody sees it until settleTail() has checked it under the exclusive lock. A reader
      // that showed it could hand its file to a COPY, acknowledged before the bytes are
      // durable. The view is the header as before that append: count, counters, UIDNEXT and
      // HIGHESTMODSEQ, so that a client told them sees the tail as new if it stays.
      unsettled_ = *h;
      for (size_t i = h->prev_num_records; i < h->num_records; ++i) {
        auto r = decodeIndexRecord(v.substr(kIndexHeaderSize + i * kIndexRecordSize, kIndexRecordSize));
        if (!r.ok()) continue;
        accountRecord(*h, *r, -1);
        h->uidnext = std::min(h->uidnext, r->uid);
        if (r->modseq > 0) h->highest_modseq = std::min(h->highest_modseq, r->modseq - 1);
      }
    }
  }
  if (tail_suspect_ || unsettled_) {
    // Until a writer repairs or settles it, everyone sees the state before that append.
    h->num_records = h->prev_num_records;
  }
  index_ = *h;
  return Status::ok();
}

Status Mailbox::refresh() {
  if (live_) return refreshView();
  io::FileLock l;
  DARIUS_RETURN_IF_ERROR(lock(io::LockMode::kShared, &l));
  DARIUS_RETURN_IF_ERROR(remapIndex());
  DARIUS_RETURN_IF_ERROR(loadIndexHeader());
  // Another handle may have added keyword names. It writes them to the header file before
  // any record uses their bits, and every such write bumps the modseq, so a header that
  // changed comes with an index that did: an index unchanged since the header was last
  // checked costs nothing more. (Compared with the last check, not with the previous
  // refresh: claimRecent, expunge and compact load newer index headers on their own.)
  const IndexState now{index_.generation, index_.highest_modseq};
  if (now == header_checked_) return Status::ok();
  DARIUS_RETURN_IF_ERROR(reloadHeaderIfReplaced());
  header_checked_ = now;
  return Status::ok();
}

Status Mailbox::reloadHeaderIfReplaced() {
  std::string p = path(kHeaderFileName);
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return Status::fromErrno(errno, p);
  // The header is only ever replaced by a rename (writeMailboxHeader), so new contents come
  // with a new inode and change time; and since keyword names are only ever added, a header
  // with new names is also longer, which no inode reuse within the change time's granularity
  // can hide. Stamped before the read: a replacement between the two leaves an old stamp,
  // and the next check reads once more.
  HeaderStamp stamp{static_cast<uint64_t>(st.st_ino),
                    static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec,
                    static_cast<uint64_t>(st.st_size)};
  if (stamp == header_stamp_) return Status::ok();
  auto h = readMailboxHeader(env_, dir_);
  if (!h.ok()) return h.status();
  header_ = std::move(*h);
  header_stamp_ = stamp;
  return Status::ok();
}

Result<uint64_t> Mailbox::purgedModseqNow() const {
  if (live_) return uint64_t{0};
  auto fd = io::openFile(path(kIndexFileName), O_RDONLY | O_CLOEXEC);
  if (!fd.ok()) return fd.status();
  char buf[kIndexHeaderSize];
  ssize_t n = ::pread(fd->get(), buf, sizeof buf, 0);
  if (n < 0) return Status::fromErrno(errno, path(kIndexFileName));
  auto h = decodeIndexHeader(std::string_view(buf, static_cast<size_t>(n)));
  if (!h.ok()) return Status::corruption(path(kIndexFileName) + ": " + h.status().message());
  return h->purged_modseq;
}

Result<std::string_view> Mailbox::recordBytes(size_t i) const {
  if (i >= index_.num_records) return Status::invalid("record number out of range");
  size_t off = kIndexHeaderSize + i * kIndexRecordSize;
  if (off + kIndexRecordSize > index_map_.size()) {
    return Status::corruption(path(kIndexFileName) + ": record " + std::to_string(i) +
                              " lies past the end of the file");
  }
  return index_map_.view().substr(off, kIndexRecordSize);
}

Result<IndexRecord> Mailbox::record(size_t i) const {
  if (live_) {
    if (i >= view_records_.size()) return Status::invalid("record number out of range");
    return view_records_[i];
  }
  auto bytes = recordBytes(i);
  if (!bytes.ok()) return bytes.status();
  auto r = decodeIndexRecord(*bytes);
  if (r.ok()) return r;
  // Perhaps a writer was rewriting it in place: read again once it has finished.
  io::FileLock l;
  DARIUS_RETURN_IF_ERROR(lock(io::LockMode::kShared, &l));
  bytes = recordBytes(i);
  if (!bytes.ok()) return bytes.status();
  r = decodeIndexRecord(*bytes);
  if (!r.ok()) {
    return Status::corruption(path(kIndexFileName) + ": offset " +
                              std::to_string(kIndexHeaderSize + i * kIndexRecordSize) + ": " +
                              r.status().message());
  }
  return r;
}

Result<int64_t> Mailbox::findUid(uint32_t uid) const {
  if (live_) {
    auto it = std::lower_bound(view_records_.begin(), view_records_.end(), uid,
                               [](const IndexRecord& r, uint32_t u) { return r.uid < u; });
    if (it == view_records_.end() || it->uid != uid) return int64_t{-1};
    return static_cast<int64_t>(it - view_records_.begin());
  }
  // Probing reads only the uid: decoding and checking every probe's record (its CRC) made a
  // lookup cost 13 checked records in a mailbox of 5,000, and SORT does one per message.
  size_t lo = 0, hi = index_.num_records;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    DARIUS_ASSIGN_OR_RETURN(std::string_view bytes, recordBytes(mid));
    uint32_t at = peekRecordUid(bytes);
    if (at == uid) {
      DARIUS_ASSIGN_OR_RETURN(IndexRecord r, record(mid));  // checked; retried under the lock
      if (r.uid != uid) return Status::corruption(path(kIndexFileName) + ": record moved");
      return static_cast<int64_t>(mid);
    }
    if (at < uid) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return int64_t{-1};
}

Status Mailbox::remapCache(uint64_t need) const {
  if (need <= cache_map_.size()) return Status::ok();
  std::string p = path(kCacheFileName);
  if (!cache_fd_.valid()) {
    auto fd = io::openFile(p, O_RDONLY | O_CLOEXEC);
    if (!fd.ok()) return fd.status();
    cache_fd_ = std::move(*fd);
  }
  struct stat st {};
  if (::fstat(cache_fd_.get(), &st) != 0) return Status::fromErrno(errno, p);
  if (static_cast<uint64_t>(st.st_size) < need) {
    return Status::corruption(p + ": record at " + std::to_string(need) +
                              " lies past the end of the file");
  }
  auto mapped = io::MappedFile::map(cache_fd_.get(), static_cast<size_t>(st.st_size), false);
  if (!mapped.ok()) return mapped.status();
  cache_map_ = std::move(*mapped);
  // A cache of another generation (reconstruct renamed a new one in, or a crash came between
  // its two renames) must not be read with this index's offsets.
  auto gen = decodeCacheHeader(cache_map_.view());
  if (!gen.ok() || *gen != index_.cache_generation) {
    cache_map_.reset();
    cache_fd_.reset();
    return Status::corruption(p + ": " + (gen.ok() ? "generation " + std::to_string(*gen) +
                                                         " does not match the index's " +
                                                         std::to_string(index_.cache_generation)
                                                   : gen.status().message()));
  }
  return Status::ok();
}

Result<CacheEntry> Mailbox::cache(const IndexRecord& r) const {
  if (live_) return viewCache(r);
  if (r.cache_offset == 0) return Status::notFound("no cache record");
  if (r.cache_offset < kCacheHeaderSize) {
    return Status::corruption(path(kCacheFileName) + ": offset " +
                              std::to_string(r.cache_offset) + " is inside the header");
  }
  DARIUS_RETURN_IF_ERROR(remapCache(r.cache_offset + kCacheRecordOverhead));
  auto e = decodeCacheRecordOf(cache_map_.view().substr(r.cache_offset), guidBytes(r.guid));
  if (!e.ok() && e.status().message().find("runs past") != std::string::npos) {
    // The mapping may predate the record's payload; map the whole file again and retry.
    cache_map_.reset();
    DARIUS_RETURN_IF_ERROR(remapCache(r.cache_offset + kCacheRecordOverhead));
    e = decodeCacheRecordOf(cache_map_.view().substr(r.cache_offset), guidBytes(r.guid));
  }
  if (!e.ok()) {
    return Status::corruption(path(kCacheFileName) + ": offset " +
                              std::to_string(r.cache_offset) + ": " + e.status().message());
  }
  return e;
}

void Mailbox::noteChange(int type, std::span<const std::pair<uint32_t, uint64_t>> uids,
                         bool synced) {
  if (change_log_ == nullptr || uids.empty()) return;
  // One record holds ~87,000 UIDs (kMaxRecordBody); a bigger change is split.
  constexpr size_t kPerRecord = 50000;
  std::vector<ChangeRecord> records;
  for (size_t i = 0; i < uids.size(); i += kPerRecord) {
    ChangeRecord r;
    r.type = static_cast<ChangeType>(type);
    r.mailbox_id = header_.unique_id;
    for (size_t j = i; j < std::min(uids.size(), i + kPerRecord); ++j) {
      r.uids.push_back({uids[j].first, uids[j].second});
    }
    records.push_back(std::move(r));
  }
  auto done = change_log_->append(records, synced ? ChangeLog::Sync::kNow
                                                 : ChangeLog::Sync::kByCaller);
  if (!done.ok()) {
    log::warning("{}: change not logged ({}): {}", dir_, changeTypeName(records[0].type),
                 done.status().toString());
  }
}

std::string Mailbox::messagePath(uint32_t uid) const {
  return dir_ + "/" + std::to_string(uid) + ".";
}

}  // namespace darius::mailbox
