// The replay of one journaled append into its mailbox after a crash (docs/formats/journal.md,
// "Replay"): the message files, the index records and header, and the cache records the append
// wrote without syncing are checked against the journal, anything the disk lost is written
// again from it, and all of it is synced. Runs under the mailbox's exclusive lock, before the
// mailbox is opened (Mailbox::open would settle or roll back a tail the journal still holds).
#include <algorithm>
#include <functional>

#include "lib/log/log.h"
#include "mailbox/cache_fill.h"
#include "mailbox/mailbox.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

// The message file `path` holds exactly `bytes` when this returns ok: kept if it does
// already, written again if it is missing or not the message (a crash lost its data).
// Either way it is synced (after a killed process its pages may not have reached the disk).
Status restoreJournaledFile(io::Env& env, const std::string& path, const IndexRecord& r,
                            std::string_view bytes, bool* rewritten,
                            const std::function<Status(const std::string&)>& sync_kept) {
  *rewritten = false;
  auto have = env.readFile(path);
  if (!have.ok() && have.status().code() != base::Code::kNotFound) return have.status();
  if (have.ok() && have->size() == r.size && sha1Of(*have) == r.guid) return sync_kept(path);
  if (bytes.size() != r.size || sha1Of(bytes) != r.guid) {
    return Status::corruption(path + ": the journal's message is not the record's");
  }
  if (have.ok()) DARIUS_RETURN_IF_ERROR(env.removeFile(path));
  auto f = env.openWritable(path, io::Env::OpenMode::kCreateNew);
  if (!f.ok()) return f.status();
  Status s = (*f)->append(bytes);
  if (s.isOk()) s = (*f)->sync();
  Status c = (*f)->close();
  *rewritten = true;
  return s.isOk() ? c : s;
}

}  // namespace

Result<JournalReplay> Mailbox::applyJournalAppend(
    io::Env& env, const std::string& dir, const JournalAppend& a,
    const std::function<Result<std::string_view>(size_t)>& bytes_of) {
  JournalReplay out;
  std::unique_ptr<Mailbox> m(new Mailbox(env, dir));
  io::FileLock l;
  DARIUS_RETURN_IF_ERROR(m->lock(io::LockMode::kExclusive, &l));
  DARIUS_RETURN_IF_ERROR(m->remapIndex());
  // The header as on disk, tail and all: loadIndexHeader() would hide an unsettled tail.
  const std::string_view view = m->index_map_.view();
  auto disk = decodeIndexHeader(view);
  if (!disk.ok()) return Status::corruption(m->path(kIndexFileName) + ": " + disk.status().message());
  IndexHeader h = *disk;
  if (h.uidvalidity != a.uidvalidity) {
    out.skipped = a.entries.size();  // the mailbox was emptied by a reconstruct with a new one
    return out;
  }
  const uint32_t first = a.first_position;
  const uint32_t end = first + static_cast<uint32_t>(a.entries.size());
  // What an append writes: UIDs ascending from above the records before it. Anything else
  // (damage that still checks) is refused before it can touch the index.
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const uint32_t uid = a.entries[i].record.uid;
    if (uid == 0 || uid == UINT32_MAX || !a.entries[i].record.live() ||
        (i > 0 && uid <= a.entries[i - 1].record.uid)) {
      return Status::corruption("journal: append entries out of order");
    }
  }
  if (end < first) return Status::corruption("journal: append positions overflow");
  auto diskRecord = [&](uint32_t pos) -> Result<IndexRecord> {
    const uint64_t at = kIndexHeaderSize + uint64_t{pos} * kIndexRecordSize;
    if (at + kIndexRecordSize > view.size()) return Status::notFound("past the end");
    return decodeIndexRecord(view.substr(at, kIndexRecordSize));
  };

  // Which entries still belong to the mailbox. In the index the append wrote to, by place;
  // after a rewrite (compact, reconstruct: a new generation, synced with every record it
  // kept) by UID, in the live records or among the expunged ones (their files stay until a
  // purge). An entry in neither was purged since: nothing to bring back.
  std::vector<bool> present(a.entries.size(), true);
  const bool same_index = h.generation == a.generation;
  if (!same_index) {
    DARIUS_RETURN_IF_ERROR(m->loadIndexHeader());
    // An unsettled tail there is a later append's, and whole (its CRC checked): look in it too.
    if (m->unsettled_) m->index_ = *m->unsettled_;
    auto gone = m->expungedRecords();
    std::set<uint32_t> expunged;
    if (gone.ok()) {
      for (const IndexRecord& r : *gone) expunged.insert(r.uid);
    }
    for (size_t i = 0; i < a.entries.size(); ++i) {
      DARIUS_ASSIGN_OR_RETURN(int64_t pos, m->findUid(a.entries[i].record.uid));
      present[i] = pos >= 0 || expunged.count(a.entries[i].record.uid) > 0;
    }
  } else if (h.num_records < first || (h.num_records > first && h.num_records < end)) {
    // Appends to one mailbox are journaled in order, each after the one before was durable,
    // and a header is written whole: an index that ends before this append began, or in its
    // middle, was not written by this store's appends.
    return Status::corruption(m->path(kIndexFileName) + ": holds " +
                              std::to_string(h.num_records) + " records, the journal's append " +
                              "covers " + std::to_string(first) + ".." + std::to_string(end));
  }

  if (same_index && first > 0) {
    auto before = diskRecord(first - 1);
    if (before.ok() && before->uid >= a.entries.front().record.uid) {
      return Status::corruption(m->path(kIndexFileName) + ": the journal's append does not "
                                "follow the record before it");
    }
  }

  // 1. The message files.
  for (size_t i = 0; i < a.entries.size(); ++i) {
    if (!present[i]) {
      ++out.skipped;
      continue;
    }
    DARIUS_ASSIGN_OR_RETURN(std::string_view bytes, bytes_of(i));
    bool rewritten = false;
    DARIUS_RETURN_IF_ERROR(restoreJournaledFile(
        env, m->messagePath(a.entries[i].record.uid), a.entries[i].record, bytes, &rewritten,
        [&m](const std::string& p) { return m->syncFileAt(p); }));
    if (rewritten) ++out.files_restored;
  }
  DARIUS_RETURN_IF_ERROR(env.syncDir(dir));
  if (!same_index) return out;

  // 2. The records, in place: one that reads back as the entry (its flags may have changed
  //    since, by a synced write) stays; one the disk lost is written again as appended.
  DARIUS_ASSIGN_OR_RETURN(std::unique_ptr<io::WritableFile> f,
                          env.openWritable(m->path(kIndexFileName), io::Env::OpenMode::kExisting));
  std::vector<IndexRecord> final_records;
  for (uint32_t k = 0; k < a.entries.size(); ++k) {
    const IndexRecord& want = a.entries[k].record;
    auto have = diskRecord(first + k);
    if (have.ok() && have->uid == want.uid && have->guid == want.guid) {
      final_records.push_back(*have);
      continue;
    }
    DARIUS_RETURN_IF_ERROR(
        f->pwrite(kIndexHeaderSize + uint64_t{first + k} * kIndexRecordSize, encodeIndexRecord(want)));
    final_records.push_back(want);
    ++out.records_restored;
  }

  // 3. The header: one that ends where the append began lost it, and takes it now; one that
  //    ends where it ended (its own, or a later one's) counts it already. The append was
  //    acknowledged, so its tail is settled whatever the header said.
  bool header_changed = false;
  if (h.num_records == first) {
    for (const IndexRecord& r : final_records) {
      accountRecord(h, r, +1);
      h.uidnext = std::max(h.uidnext, r.uid + 1);
      h.highest_modseq = std::max(h.highest_modseq, r.modseq);
      h.last_append_date = std::max(h.last_append_date, r.save_date);
    }
    h.num_records = end;
    h.prev_num_records = end;
    h.tail_crc = 0;
    header_changed = true;
    out.header_restored = true;
  } else if (h.prev_num_records < h.num_records && h.prev_num_records <= first &&
             h.num_records == end) {
    h.prev_num_records = h.num_records;
    h.tail_crc = 0;
    header_changed = true;
  }
  if (header_changed) DARIUS_RETURN_IF_ERROR(f->pwrite(0, encodeIndexHeader(h)));
  DARIUS_RETURN_IF_ERROR(f->sync());
  DARIUS_RETURN_IF_ERROR(m->remapIndex());

  // 4. The cache records: one that does not read back is made again from the message.
  m->index_ = h;  // cache() checks the cache file's generation against the index's
  auto c = env.openWritable(m->path(kCacheFileName), io::Env::OpenMode::kAppend);
  if (!c.ok()) return c.status();
  std::string batch;
  const uint64_t base = (*c)->size();
  std::vector<std::pair<uint32_t, IndexRecord>> moved;
  for (uint32_t k = 0; k < final_records.size(); ++k) {
    IndexRecord r = final_records[k];
    if (r.cache_offset != 0 && r.cache_offset < base && m->cache(r).ok()) continue;
    DARIUS_ASSIGN_OR_RETURN(std::string_view bytes, bytes_of(k));
    r.cache_offset = base + batch.size();
    batch += encodeCacheRecord(buildCacheEntry(bytes), guidBytes(r.guid));
    moved.emplace_back(first + k, r);
  }
  if (!batch.empty()) DARIUS_RETURN_IF_ERROR((*c)->append(batch));
  DARIUS_RETURN_IF_ERROR((*c)->sync());
  DARIUS_RETURN_IF_ERROR((*c)->close());
  for (const auto& [pos, r] : moved) {
    DARIUS_RETURN_IF_ERROR(
        f->pwrite(kIndexHeaderSize + uint64_t{pos} * kIndexRecordSize, encodeIndexRecord(r)));
  }
  if (!moved.empty()) DARIUS_RETURN_IF_ERROR(f->sync());
  out.cache_restored = moved.size();
  DARIUS_RETURN_IF_ERROR(f->close());
  return out;
}

}  // namespace darius::mailbox
