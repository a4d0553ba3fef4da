// Index rewrite (docs/formats/index.md, "Rewrite"): expunged records leave the index for
// `darius.expunged`, and a new index replaces the old one under a new generation. Readers that
// still map the old file keep reading it safely (it is never truncated) and switch at their
// next refresh(), when they see the inode change.
#include <map>

#include "lib/io/atomic_file.h"
#include "mailbox/mailbox.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

constexpr size_t kExpungedHeaderSize = 16;

}  // namespace

Result<std::vector<IndexRecord>> Mailbox::expungedRecords() const {
  std::map<uint32_t, IndexRecord> by_uid;
  auto bytes = env_.readFile(path(kExpungedFileName));
  if (bytes.ok()) {
    std::string_view v = *bytes;
    if (v.size() < kExpungedHeaderSize || v.substr(0, kExpungedHeaderSize) != expungedFileHeader()) {
      return Status::corruption(path(kExpungedFileName) + ": bad header at offset 0");
    }
    // A torn tail (a crash during the append) is ignored: the records are still in the old
    // index, which stayed in place, and the next rewrite appends them again.
    for (size_t off = kExpungedHeaderSize; off + kIndexRecordSize <= v.size();
         off += kIndexRecordSize) {
      auto r = decodeIndexRecord(v.substr(off, kIndexRecordSize));
      if (!r.ok()) continue;
      by_uid[r->uid] = *r;
    }
  } else if (bytes.status().code() != base::Code::kNotFound) {
    return bytes.status();
  }
  for (size_t i = 0; i < index_.num_records; ++i) {
    auto r = record(i);
    if (!r.ok()) return r.status();
    if (!r->live()) by_uid[r->uid] = *r;
  }
  std::vector<IndexRecord> out;
  out.reserve(by_uid.size());
  for (auto& [uid, r] : by_uid) out.push_back(r);
  return out;
}

Status Mailbox::compact() {
  io::FileLock l;
  DARIUS_RETURN_IF_ERROR(lock(io::LockMode::kExclusive, &l));
  DARIUS_RETURN_IF_ERROR(remapIndex());
  DARIUS_RETURN_IF_ERROR(loadIndexHeader());
  if (tail_suspect_) DARIUS_RETURN_IF_ERROR(repairTornAppend());
  IndexHeader h = index_;
  std::string gone, live;
  uint32_t live_count = 0;
  for (size_t i = 0; i < h.num_records; ++i) {
    auto r = record(i);
    if (!r.ok()) return r.status();
    if (r->live()) {
      live += encodeIndexRecord(*r);
      ++live_count;
    } else {
      gone += encodeIndexRecord(*r);
    }
  }
  // 1. The expunged records, durable in their own file before they leave the index.
  if (!gone.empty()) {
    std::string p = path(kExpungedFileName);
    auto exists = env_.fileExists(p);
    if (!exists.ok()) return exists.status();
    auto f = env_.openWritable(p, io::Env::OpenMode::kAppend);
    if (!f.ok()) return f.status();
    if ((*f)->size() == 0) DARIUS_RETURN_IF_ERROR((*f)->append(expungedFileHeader()));
    DARIUS_RETURN_IF_ERROR((*f)->append(gone));
    DARIUS_RETURN_IF_ERROR((*f)->sync());
    DARIUS_RETURN_IF_ERROR((*f)->close());
    if (!*exists) DARIUS_RETURN_IF_ERROR(env_.syncDir(dir_));
  }
  // 2. The new index, renamed over the old one (writeFileAtomic: temp, fsync, rename, fsync
  //    of the directory).
  h.generation += 1;
  h.num_records = live_count;
  h.num_expunged = 0;
  h.prev_num_records = live_count;
  h.tail_crc = 0;
  DARIUS_RETURN_IF_ERROR(io::writeFileAtomic(env_, path(kIndexFileName), encodeIndexHeader(h) + live));
  DARIUS_RETURN_IF_ERROR(remapIndex());
  return loadIndexHeader();
}

}  // namespace darius::mailbox
