// Phase 2 of expunge (docs/formats/expunged.md, "Purge"): expired messages leave
// darius.expunged and its cache, and their files are unlinked. The rewrite happens outside
// the mailbox lock; the lock is held only to take in what a concurrent rewrite of the index
// appended meanwhile, to raise purged_modseq and to rename the new files in.
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <thread>

#include "lib/io/atomic_file.h"
#include "lib/log/log.h"
#include "mailbox/change_log.h"
#include "mailbox/expunged_file.h"
#include "mailbox/mailbox.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

// Temp names in io::isAtomicTempName()'s form; a crash's leftovers are overwritten by the next
// purge of the mailbox.
const std::string kIndexTemp = "." + std::string(kExpungedFileName) + ".tmp.purge";
const std::string kCacheTemp = "." + std::string(kExpungedCacheFileName) + ".tmp.purge";

// Step 4's pacing of the unlinks (see there).
constexpr size_t kUnlinkBatch = 256;
constexpr auto kUnlinkPause = std::chrono::milliseconds(2);
// Step 2 writes the new cache (about 1.6 KB a message: 157 MB at 100,000) in pieces of this
// size, each synced before the next: sessions' commits (fdatasync, ending in a device flush)
// then wait behind at most one piece of it, not behind the whole file at its one sync.
constexpr size_t kTempSyncPiece = 4 << 20;

// The kept records and their cache records, with offsets into the new cache (which starts
// with its header at offset 0 of `cache_out`).
void copyKept(const std::vector<IndexRecord>& records, std::string_view old_cache,
              const std::set<uint32_t>& drop, uint64_t cache_base, std::string& index_out,
              std::string& cache_out, Mailbox::Purged& purged,
              std::vector<std::pair<uint32_t, uint64_t>>& logged,
              std::map<uint32_t, uint64_t>& sizes) {
  for (IndexRecord r : records) {
    if (drop.contains(r.uid)) {
      purged.messages += 1;  // recounted without duplicates before the switch
      purged.bytes += r.size;
      logged.emplace_back(r.uid, r.modseq);
      sizes[r.uid] = r.size;
      continue;
    }
    std::string c = cacheRecordAt(old_cache, r.cache_offset, guidBytes(r.guid));
    r.cache_offset = c.empty() ? 0 : cache_base + cache_out.size();
    cache_out += c;
    index_out += encodeIndexRecord(r);
  }
}

// A UID in both the snapshot and the tail (a rewrite that crashed after its append and ran
// again) is counted once: `logged` sorted without duplicates, and `purged` counted from it.
void settleLogged(std::vector<std::pair<uint32_t, uint64_t>>& logged,
                  const std::map<uint32_t, uint64_t>& sizes, Mailbox::Purged& purged) {
  std::sort(logged.begin(), logged.end());
  logged.erase(std::unique(logged.begin(), logged.end(),
                           [](const auto& a, const auto& b) { return a.first == b.first; }),
               logged.end());
  purged = Mailbox::Purged{};
  purged.uids.reserve(logged.size());
  for (const auto& [uid, modseq] : logged) {
    purged.messages += 1;
    purged.bytes += sizes.at(uid);
    purged.uids.push_back(uid);
  }
}

// A read-only descriptor of `p`, or none if there is no such file.
Result<io::UniqueFd> openIfExists(const std::string& p) {
  auto fd = io::openFile(p, O_RDONLY);
  if (!fd.ok() && fd.status().code() == base::Code::kNotFound) return io::UniqueFd();
  return fd;
}

std::string journalText(const std::vector<std::pair<uint32_t, uint64_t>>& logged) {
  std::string out;
  for (const auto& [uid, modseq] : logged) out += std::to_string(uid) + "\n";
  return out;
}

}  // namespace

Status Mailbox::finishPendingPurge() {
  // A purge cut between its renames and its unlinks left files that no index names: their
  // UIDs are in the journal, written before the renames. A UID is never given out twice, so
  // one that is in neither index now is one of those files (reconstruct may have restored it
  // as expunged meanwhile: then it is in the expunged index and stays).
  auto text = env_.readFile(path(kPurgeJournalFileName));
  if (!text.ok()) {
    return text.status().code() == base::Code::kNotFound ? Status::ok() : text.status();
  }
  DARIUS_RETURN_IF_ERROR(refresh());
  DARIUS_ASSIGN_OR_RETURN(ExpungedIndex held, readExpungedIndex(env_, dir_));
  std::set<uint32_t> kept;
  for (const IndexRecord& r : held.records) kept.insert(r.uid);
  size_t at = 0, removed = 0;
  while (at < text->size()) {
    size_t nl = text->find('\n', at);
    if (nl == std::string::npos) break;  // a torn last line: its file was never unlinked yet
    uint32_t uid = static_cast<uint32_t>(std::strtoul(text->c_str() + at, nullptr, 10));
    at = nl + 1;
    if (uid == 0 || kept.contains(uid)) continue;
    DARIUS_ASSIGN_OR_RETURN(int64_t pos, findUid(uid));
    if (pos >= 0) continue;
    Status s = env_.removeFile(messagePath(uid));
    if (s.isOk()) ++removed;
    if (!s.isOk() && s.code() != base::Code::kNotFound) return s;
  }
  if (removed > 0) {
    log::notice("{}: removed {} files an interrupted purge left", dir_, removed);
    DARIUS_RETURN_IF_ERROR(env_.syncDir(dir_));
  }
  return env_.removeFile(path(kPurgeJournalFileName));
}

Result<Mailbox::Purged> Mailbox::purgeExpunged(std::span<const uint32_t> uids) {
  if (isReadOnly()) return viewIsReadOnly();
  if (uids.empty()) return Purged{};
  const std::set<uint32_t> drop(uids.begin(), uids.end());
  // One purge of a mailbox at a time (dariusd's nightly run and `darius expire` may meet):
  // another purge renaming its files in during this one's unlocked window would be undone
  // by this one's stale snapshot.
  DARIUS_ASSIGN_OR_RETURN(io::FileLock purging,
                          io::FileLock::acquire(path(kPurgeLockFileName), io::LockMode::kExclusive,
                                                /*wait=*/true));
  DARIUS_RETURN_IF_ERROR(finishPendingPurge());
  // 1. Records still marked in the index move out first, as any rewrite moves them.
  DARIUS_RETURN_IF_ERROR(refresh());
  bool in_index = false;
  for (size_t i = 0; i < index_.num_records && !in_index; ++i) {
    auto r = record(i);
    if (!r.ok()) return r.status();
    in_index = !r->live() && drop.contains(r->uid);
  }
  if (in_index) DARIUS_RETURN_IF_ERROR(compact());
  // Only appends can happen meanwhile (compact); a rewrite of the file (reconstruct, the
  // upgrade of a 1.0 file) gives it a new inode, and the work is done again from it.
  for (int attempt = 0;; ++attempt) {
    auto done = purgeOnce(drop);
    if (done.ok() || done.status().code() != base::Code::kTemporary || attempt == 2) return done;
  }
}

Result<Mailbox::Purged> Mailbox::purgeOnce(const std::set<uint32_t>& drop) {
  Purged purged;
  auto inodeOf = [&](const std::string& p) -> uint64_t {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
  };
  // 2. The new files, without the mailbox lock: readers of darius.expunged take none, and
  //    appends (compact) only add records after `old.end`, picked up in step 3.
  const uint64_t inode = inodeOf(path(kExpungedFileName));
  DARIUS_ASSIGN_OR_RETURN(ExpungedIndex old, readExpungedIndex(env_, dir_));
  std::string old_cache;
  if (auto c = env_.readFile(path(kExpungedCacheFileName)); c.ok()) {
    old_cache = std::move(*c);
  } else if (c.status().code() != base::Code::kNotFound) {
    return c.status();
  }
  std::string index_out = expungedFileHeader();
  std::string cache_out = encodeCacheHeader(1);
  std::vector<std::pair<uint32_t, uint64_t>> logged;
  std::map<uint32_t, uint64_t> sizes;
  copyKept(old.records, old_cache, drop, 0, index_out, cache_out, purged, logged, sizes);
  if (purged.messages == 0) return purged;
  // Sorting and counting 100,000 UIDs takes milliseconds: done here, and again under the lock
  // only if the tail adds some.
  settleLogged(logged, sizes, purged);
  // Written and synced before the lock: the lock then covers only what changed meanwhile.
  auto writeTemp = [&](const std::string& name, std::string_view bytes)
      -> Result<std::unique_ptr<io::WritableFile>> {
    auto f = env_.openWritable(path(name), io::Env::OpenMode::kTruncate);
    if (!f.ok()) return f.status();
    do {
      std::string_view piece = bytes.substr(0, kTempSyncPiece);
      DARIUS_RETURN_IF_ERROR((*f)->append(piece));
      DARIUS_RETURN_IF_ERROR((*f)->sync());
      bytes.remove_prefix(piece.size());
    } while (!bytes.empty());
    return std::move(*f);
  };
  DARIUS_ASSIGN_OR_RETURN(auto index_tmp, writeTemp(kIndexTemp, index_out));
  DARIUS_ASSIGN_OR_RETURN(auto cache_tmp, writeTemp(kCacheTemp, cache_out));
  // The journal of the unlinks to come, durable before the renames (and written before the
  // lock, which then need not wait for it): a cut after the renames leaves files no index
  // names, which the next purge removes (finishPendingPurge) without waiting for a
  // reconstruct. Until the renames, every UID it names is still in the expunged index, which
  // finishPendingPurge leaves alone.
  DARIUS_RETURN_IF_ERROR(
      io::writeFileAtomic(env_, path(kPurgeJournalFileName), journalText(logged)));
  const size_t journaled = logged.size();

  // 3. Under the lock: what was appended since step 2, then the switch.
  io::FileLock l;
  DARIUS_RETURN_IF_ERROR(lock(io::LockMode::kExclusive, &l));
  if (inodeOf(path(kExpungedFileName)) != inode) {
    return Status::temporary(path(kExpungedFileName) + " was rewritten during the purge");
  }
  // The files the renames below replace, held open until after the unlock. A rename drops
  // the last name of the old file, and were nothing holding it, the kernel would free its
  // blocks inside the rename, under the lock: the old cache is about 1.6 KB a message (157 MB
  // at 100,000), and on a filesystem mounted with discard each freed extent is a TRIM waited
  // for. Closing these after the unlock frees them there. Opened under the lock, so they are
  // the files the renames replace; the cache's descriptor also serves the tail below.
  DARIUS_ASSIGN_OR_RETURN(io::UniqueFd old_cache_fd, openIfExists(path(kExpungedCacheFileName)));
  DARIUS_ASSIGN_OR_RETURN(io::UniqueFd old_index_fd, openIfExists(path(kExpungedFileName)));
  auto now_size = env_.fileSize(path(kExpungedFileName));
  if (!now_size.ok() && now_size.status().code() != base::Code::kNotFound) {
    return now_size.status();
  }
  if (now_size.ok() && *now_size > old.end) {
    auto f = env_.openWritable(path(kExpungedFileName), io::Env::OpenMode::kExisting);
    if (!f.ok()) return f.status();
    DARIUS_ASSIGN_OR_RETURN(std::string tail, (*f)->pread(old.end, *now_size - old.end));
    DARIUS_RETURN_IF_ERROR((*f)->close());
    auto added = parseExpungedIndex(expungedFileHeader() + tail);
    if (!added.ok()) return added.status();
    // The tail's cache records through a mapping: only their pages are read, where reading
    // the whole cache (157 MB at 100,000 messages) would keep the lock for as long.
    io::MappedFile cache_map;
    if (old_cache_fd.valid()) {
      struct stat st {};
      if (::fstat(old_cache_fd.get(), &st) != 0) {
        return Status::fromErrno(errno, path(kExpungedCacheFileName));
      }
      DARIUS_ASSIGN_OR_RETURN(cache_map, io::MappedFile::map(old_cache_fd.get(),
                                                             static_cast<size_t>(st.st_size),
                                                             /*writable=*/false));
    }
    std::string added_index, added_cache;
    copyKept(added->records, cache_map.view(), drop, cache_out.size(), added_index, added_cache,
             purged, logged, sizes);
    DARIUS_RETURN_IF_ERROR(index_tmp->append(added_index));
    DARIUS_RETURN_IF_ERROR(cache_tmp->append(added_cache));
    DARIUS_RETURN_IF_ERROR(index_tmp->sync());
    DARIUS_RETURN_IF_ERROR(cache_tmp->sync());
    if (logged.size() != journaled) settleLogged(logged, sizes, purged);
  }
  DARIUS_RETURN_IF_ERROR(index_tmp->close());
  DARIUS_RETURN_IF_ERROR(cache_tmp->close());
  if (logged.size() != journaled) {
    // The tail added UIDs to purge: the journal names them too before the renames.
    DARIUS_RETURN_IF_ERROR(
        io::writeFileAtomic(env_, path(kPurgeJournalFileName), journalText(logged)));
  }
  // purged_modseq first: a crash before the renames then only makes QRESYNC report more
  // UIDs as vanished (all of them are expunged), never fewer.
  DARIUS_RETURN_IF_ERROR(remapIndex());
  DARIUS_RETURN_IF_ERROR(loadIndexHeader());
  DARIUS_RETURN_IF_ERROR(settleTail());
  uint64_t max_modseq = 0;
  for (const auto& [uid, modseq] : logged) max_modseq = std::max(max_modseq, modseq);
  if (max_modseq > index_.purged_modseq) {
    IndexHeader h = index_;
    h.purged_modseq = max_modseq;
    h.prev_num_records = h.num_records;
    h.tail_crc = 0;
    auto f = env_.openWritable(path(kIndexFileName), io::Env::OpenMode::kAppend);
    if (!f.ok()) return f.status();
    DARIUS_RETURN_IF_ERROR(writeIndexHeader(**f, h));
    DARIUS_RETURN_IF_ERROR((*f)->close());
  }
  // The cache before the index: an old index over the new cache reads no cache record whose
  // GUID does not match (cache_format.h), so FETCH falls back to the message file.
  DARIUS_RETURN_IF_ERROR(env_.renameFile(path(kCacheTemp), path(kExpungedCacheFileName)));
  DARIUS_RETURN_IF_ERROR(env_.renameFile(path(kIndexTemp), path(kExpungedFileName)));
  l.unlock();
  // The renames are made durable after the unlock. What needs them durable comes after this
  // sync: the change record below (replicas must not learn of a purge a power cut can undo)
  // and the unlinks (a file must never go while an index that names it may come back). A
  // session that takes the lock meanwhile and writes may build on the new files without
  // this sync: a rewrite (compact) appends to the new darius.expunged, but it drops those
  // records from the live index only by renaming a new index in and syncing this same
  // directory, which makes these renames durable too; until then a cut brings back the old
  // expunged files and the old index, which still holds what the rewrite appended (so the
  // appended copies are lost with the new inode, and nothing else). Expunges in place,
  // flag changes and appends do not depend on the expunged files at all. Readers of the
  // expunged files take no lock and could see the renames before their sync already.
  DARIUS_RETURN_IF_ERROR(env_.syncDir(dir_));
  // The old files' blocks are freed here, outside the lock.
  old_cache_fd.reset();
  old_index_fd.reset();
  noteChange(static_cast<int>(ChangeType::kPurge), logged);

  // 4. The files, which no index names any more. A crash among the unlinks leaves files that
  //    reconstruct restores as expunged (never live), for a later expire.
  //    In batches with a pause between them: each unlink that frees blocks may wait for a
  //    TRIM (a filesystem mounted with discard), and 100,000 of them back to back keep the
  //    device busy for the whole run, so that every commit of a session (an fdatasync, which
  //    ends in a device flush) queues behind one. The pauses leave the device idle gaps, at a
  //    cost of about a second per 100,000 files.
  size_t n = 0;
  for (uint32_t uid : purged.uids) {
    Status s = env_.removeFile(messagePath(uid));
    if (!s.isOk() && s.code() != base::Code::kNotFound) {
      log::warning("{}: purging UID {}: {}", dir_, uid, s.toString());
    }
    if (++n % kUnlinkBatch == 0 && n < purged.uids.size()) {
      std::this_thread::sleep_for(kUnlinkPause);
    }
  }
  DARIUS_RETURN_IF_ERROR(env_.syncDir(dir_));
  // Done; a journal that survives a crash from here only names files already gone.
  Status j = env_.removeFile(path(kPurgeJournalFileName));
  if (!j.isOk() && j.code() != base::Code::kNotFound) return j;
  return purged;
}

}  // namespace darius::mailbox
