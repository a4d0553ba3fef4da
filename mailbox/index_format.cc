#include "mailbox/index_format.h"

#include <zlib.h>

#include <cstring>
#include <string>

#include "lib/base/little_endian.h"

namespace darius::mailbox {
namespace {

using base::Result;
using base::Status;

template <typename T>
void put(std::string& out, size_t at, T v) {
  base::putLittleEndian<T>(out, at, v);
}

template <typename T>
T get(std::string_view in, size_t at) {
  return base::getLittleEndian<T>(in, at);
}

// Offsets of the header fields (docs/formats/index.md, "Header").
constexpr size_t kHMajor = 8, kHMinor = 10, kHHeaderSize = 12, kHRecordSize = 16,
                 kHNumRecords = 20, kHGeneration = 24, kHNumExpunged = 32, kHUidValidity = 36,
                 kHUidNext = 40, kHNumDeleted = 44, kHHighestModseq = 48, kHQuotaUsed = 56,
                 kHNumSeen = 64, kHNumAnswered = 68, kHNumFlagged = 72, kHPrevRecords = 76,
                 kHLastAppend = 80, kHCacheGeneration = 88, kHTailCrc = 96, kHRecentUid = 100,
                 kHPurgedModseq = 104, kHCrc = 124;

// Offsets of the record fields (docs/formats/index.md, "Records").
constexpr size_t kRUid = 0, kRFlags = 4, kRInternalDate = 8, kRSaveDate = 16, kRSize = 24,
                 kRModseq = 32, kRCacheOffset = 40, kRHeaderSize = 48, kRTz = 52,
                 kRUserFlags = 56, kRGuid = 72, kRThreadId = 96, kRExpungedAt = 104,
                 kRCrc = 124;

}  // namespace

uint32_t crc32Of(std::string_view bytes) {
  uLong c = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; index pieces are tiny, but stay correct for anything.
  while (!bytes.empty()) {
    uInt n = static_cast<uInt>(std::min<size_t>(bytes.size(), 1u << 30));
    c = crc32(c, reinterpret_cast<const Bytef*>(bytes.data()), n);
    bytes.remove_prefix(n);
  }
  return static_cast<uint32_t>(c);
}

std::string encodeIndexHeader(const IndexHeader& h) {
  std::string out(kIndexHeaderSize, '\0');
  std::memcpy(out.data(), kIndexMagic.data(), kIndexMagic.size());
  put<uint16_t>(out, kHMajor, h.major);
  put<uint16_t>(out, kHMinor, h.minor);
  put<uint32_t>(out, kHHeaderSize, kIndexHeaderSize);
  put<uint32_t>(out, kHRecordSize, kIndexRecordSize);
  put<uint32_t>(out, kHNumRecords, h.num_records);
  put<uint64_t>(out, kHGeneration, h.generation);
  put<uint32_t>(out, kHNumExpunged, h.num_expunged);
  put<uint32_t>(out, kHUidValidity, h.uidvalidity);
  put<uint32_t>(out, kHUidNext, h.uidnext);
  put<uint32_t>(out, kHNumDeleted, h.num_deleted);
  put<uint64_t>(out, kHHighestModseq, h.highest_modseq);
  put<uint64_t>(out, kHQuotaUsed, h.quota_used);
  put<uint32_t>(out, kHNumSeen, h.num_seen);
  put<uint32_t>(out, kHNumAnswered, h.num_answered);
  put<uint32_t>(out, kHNumFlagged, h.num_flagged);
  put<int64_t>(out, kHLastAppend, h.last_append_date);
  put<uint64_t>(out, kHCacheGeneration, h.cache_generation);
  put<uint32_t>(out, kHPrevRecords, h.prev_num_records);
  put<uint32_t>(out, kHTailCrc, h.tail_crc);
  put<uint32_t>(out, kHRecentUid, h.recent_uid);
  put<uint64_t>(out, kHPurgedModseq, h.purged_modseq);
  put<uint32_t>(out, kHCrc, crc32Of(std::string_view(out).substr(0, kHCrc)));
  return out;
}

Result<IndexHeader> decodeIndexHeader(std::string_view in) {
  if (in.size() < kIndexHeaderSize) {
    return Status::corruption("index header truncated: " + std::to_string(in.size()) +
                              " of " + std::to_string(kIndexHeaderSize) + " bytes");
  }
  if (in.substr(0, kIndexMagic.size()) != kIndexMagic) {
    return Status::corruption("not a darius index file (bad magic at offset 0)");
  }
  IndexHeader h;
  h.major = get<uint16_t>(in, kHMajor);
  h.minor = get<uint16_t>(in, kHMinor);
  if (h.major != kIndexMajor) {
    return Status::corruption("index version " + std::to_string(h.major) + "." +
                              std::to_string(h.minor) + " is not supported (want " +
                              std::to_string(kIndexMajor) + ".x)");
  }
  // A newer minor version may only add fields in the reserved bytes, so the sizes must hold.
  if (get<uint32_t>(in, kHHeaderSize) != kIndexHeaderSize ||
      get<uint32_t>(in, kHRecordSize) != kIndexRecordSize) {
    return Status::corruption("index header or record size does not match version 1");
  }
  uint32_t want = get<uint32_t>(in, kHCrc);
  if (crc32Of(in.substr(0, kHCrc)) != want) {
    return Status::corruption("index header CRC mismatch (offset 0)");
  }
  h.num_records = get<uint32_t>(in, kHNumRecords);
  h.generation = get<uint64_t>(in, kHGeneration);
  h.num_expunged = get<uint32_t>(in, kHNumExpunged);
  h.uidvalidity = get<uint32_t>(in, kHUidValidity);
  h.uidnext = get<uint32_t>(in, kHUidNext);
  h.num_deleted = get<uint32_t>(in, kHNumDeleted);
  h.highest_modseq = get<uint64_t>(in, kHHighestModseq);
  h.quota_used = get<uint64_t>(in, kHQuotaUsed);
  h.num_seen = get<uint32_t>(in, kHNumSeen);
  h.num_answered = get<uint32_t>(in, kHNumAnswered);
  h.num_flagged = get<uint32_t>(in, kHNumFlagged);
  h.last_append_date = get<int64_t>(in, kHLastAppend);
  h.cache_generation = get<uint64_t>(in, kHCacheGeneration);
  h.prev_num_records = get<uint32_t>(in, kHPrevRecords);
  h.tail_crc = get<uint32_t>(in, kHTailCrc);
  h.recent_uid = get<uint32_t>(in, kHRecentUid);  // minor 1; zero (reserved) in 1.0 files
  h.purged_modseq = get<uint64_t>(in, kHPurgedModseq);  // minor 2; zero before
  if (h.prev_num_records > h.num_records || h.num_expunged > h.num_records || h.uidnext == 0 || h.uidvalidity == 0) {
    return Status::corruption("index header counts are inconsistent (offset 0)");
  }
  return h;
}

std::string encodeIndexRecord(const IndexRecord& r) {
  std::string out(kIndexRecordSize, '\0');
  put<uint32_t>(out, kRUid, r.uid);
  put<uint32_t>(out, kRFlags, r.system_flags);
  put<int64_t>(out, kRInternalDate, r.internal_date);
  put<int64_t>(out, kRSaveDate, r.save_date);
  put<uint64_t>(out, kRSize, r.size);
  put<uint64_t>(out, kRModseq, r.modseq);
  put<uint64_t>(out, kRCacheOffset, r.cache_offset);
  put<uint32_t>(out, kRHeaderSize, r.header_size);
  put<int16_t>(out, kRTz, r.tz_offset_minutes);
  put<uint64_t>(out, kRUserFlags, r.user_flags[0]);
  put<uint64_t>(out, kRUserFlags + 8, r.user_flags[1]);
  std::memcpy(out.data() + kRGuid, r.guid.data(), r.guid.size());
  put<uint64_t>(out, kRThreadId, r.thread_id);
  put<int64_t>(out, kRExpungedAt, r.expunged_at);
  put<uint32_t>(out, kRCrc, crc32Of(std::string_view(out).substr(0, kRCrc)));
  return out;
}

uint32_t peekRecordUid(std::string_view in) { return get<uint32_t>(in, kRUid); }

Result<IndexRecord> decodeIndexRecord(std::string_view in) {
  if (in.size() < kIndexRecordSize) return Status::corruption("index record truncated");
  if (crc32Of(in.substr(0, kRCrc)) != get<uint32_t>(in, kRCrc)) {
    return Status::corruption("index record CRC mismatch");
  }
  IndexRecord r;
  r.uid = get<uint32_t>(in, kRUid);
  r.system_flags = get<uint32_t>(in, kRFlags);
  r.internal_date = get<int64_t>(in, kRInternalDate);
  r.save_date = get<int64_t>(in, kRSaveDate);
  r.size = get<uint64_t>(in, kRSize);
  r.modseq = get<uint64_t>(in, kRModseq);
  r.cache_offset = get<uint64_t>(in, kRCacheOffset);
  r.header_size = get<uint32_t>(in, kRHeaderSize);
  r.tz_offset_minutes = get<int16_t>(in, kRTz);
  r.user_flags[0] = get<uint64_t>(in, kRUserFlags);
  r.user_flags[1] = get<uint64_t>(in, kRUserFlags + 8);
  std::memcpy(r.guid.data(), in.data() + kRGuid, r.guid.size());
  r.thread_id = get<uint64_t>(in, kRThreadId);
  r.expunged_at = get<int64_t>(in, kRExpungedAt);  // minor 2; zero before
  if (r.uid == 0 || (r.system_flags & ~kKnownFlagBits) != 0 || r.header_size > r.size) {
    return Status::corruption("index record fields are invalid (uid " + std::to_string(r.uid) +
                              ")");
  }
  return r;
}

void accountRecord(IndexHeader& h, const IndexRecord& r, int sign) {
  if (!r.live()) return;
  auto adjust = [sign](uint32_t& n, bool on) {
    if (on) n = sign > 0 ? n + 1 : (n > 0 ? n - 1 : 0);
  };
  adjust(h.num_deleted, r.system_flags & kFlagDeleted);
  adjust(h.num_seen, r.system_flags & kFlagSeen);
  adjust(h.num_answered, r.system_flags & kFlagAnswered);
  adjust(h.num_flagged, r.system_flags & kFlagFlagged);
  h.quota_used = sign > 0 ? h.quota_used + r.size : (h.quota_used >= r.size ? h.quota_used - r.size : 0);
}

}  // namespace darius::mailbox
