#include "mailbox/change_log_format.h"

#include <zlib.h>

#include <chrono>
#include <cstring>

#include "lib/base/little_endian.h"

namespace darius::mailbox {
namespace {

using base::Result;
using base::Status;

// Header field offsets (docs/formats/changelog.md, "Segment header").
constexpr size_t kLogHMajor = 8, kLogHMinor = 10, kLogHHeaderSize = 12, kLogHFirstSeq = 16;
// Body field offsets (docs/formats/changelog.md, "Records"), relative to the body.
constexpr size_t kBSeq = 0, kBTime = 8, kBType = 16, kBIdLen = 18, kBId = 20;
constexpr size_t kMaxString = 0xffff;

uint32_t crcOf(uint32_t crc, std::string_view bytes) {
  uLong c = crc;
  while (!bytes.empty()) {
    uInt n = static_cast<uInt>(std::min<size_t>(bytes.size(), 1u << 30));
    c = crc32(c, reinterpret_cast<const Bytef*>(bytes.data()), n);
    bytes.remove_prefix(n);
  }
  return static_cast<uint32_t>(c);
}

// The frame CRC covers the length field and the body, so a length bent by damage cannot pair
// with a body that happens to check.
uint32_t frameCrc(std::string_view frame_len_field, std::string_view body) {
  return crcOf(crcOf(0, frame_len_field), body);
}

Status putString(std::string& out, std::string_view s, const char* what) {
  if (s.size() > kMaxString) return Status::tooBig(std::string(what) + " longer than 65535 bytes");
  base::appendLittleEndian<uint16_t>(out, static_cast<uint16_t>(s.size()));
  out.append(s);
  return Status::ok();
}

// Sequential reader of a body's payload; every read is bounds-checked.
class Cursor {
 public:
  explicit Cursor(std::string_view in) : in_(in) {}
  template <typename T>
  bool get(T* v) {
    if (in_.size() - pos_ < sizeof(T)) return false;
    *v = base::getLittleEndian<T>(in_, pos_);
    pos_ += sizeof(T);
    return true;
  }
  bool getString(std::string* s) {
    uint16_t n = 0;
    if (!get(&n) || in_.size() - pos_ < n) return false;
    s->assign(in_.substr(pos_, n));
    pos_ += n;
    return true;
  }
  size_t left() const { return in_.size() - pos_; }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

bool hasUids(ChangeType t) {
  return t == ChangeType::kAppend || t == ChangeType::kFlags || t == ChangeType::kExpunge ||
         t == ChangeType::kPurge;
}

// A known type's fields, other than its own, must be empty: the encoder would drop them.
bool onlyOwnFields(const ChangeRecord& r) {
  ChangeType t = r.type;
  bool names = t == ChangeType::kCreate || t == ChangeType::kDelete || t == ChangeType::kRename;
  return (hasUids(t) || r.uids.empty()) && (names || r.name.empty()) &&
         (t == ChangeType::kRename || r.old_name.empty()) &&
         (t == ChangeType::kAcl || (r.identifier.empty() && r.rights.empty())) &&
         (t == ChangeType::kQuota || (r.quota_root.empty() && r.limits.empty())) &&
         r.raw_payload.empty();
}

Status encodePayload(const ChangeRecord& r, std::string& out) {
  switch (r.type) {
    case ChangeType::kAppend:
    case ChangeType::kFlags:
    case ChangeType::kExpunge:
    case ChangeType::kPurge:
      if (r.uids.size() > kMaxRecordBody / 12) return Status::tooBig("too many UIDs in one record");
      base::appendLittleEndian<uint32_t>(out, static_cast<uint32_t>(r.uids.size()));
      for (const UidModseq& u : r.uids) {
        base::appendLittleEndian<uint32_t>(out, u.uid);
        base::appendLittleEndian<uint64_t>(out, u.modseq);
      }
      return Status::ok();
    case ChangeType::kCreate:
    case ChangeType::kDelete:
      return putString(out, r.name, "mailbox name");
    case ChangeType::kRename:
      DARIUS_RETURN_IF_ERROR(putString(out, r.old_name, "old mailbox name"));
      return putString(out, r.name, "mailbox name");
    case ChangeType::kAcl:
      DARIUS_RETURN_IF_ERROR(putString(out, r.identifier, "ACL identifier"));
      return putString(out, r.rights, "ACL rights");
    case ChangeType::kQuota:
      DARIUS_RETURN_IF_ERROR(putString(out, r.quota_root, "quota root"));
      if (r.limits.size() > kMaxString) return Status::tooBig("too many quota resources");
      base::appendLittleEndian<uint16_t>(out, static_cast<uint16_t>(r.limits.size()));
      for (const QuotaLimit& l : r.limits) {
        DARIUS_RETURN_IF_ERROR(putString(out, l.resource, "quota resource"));
        base::appendLittleEndian<int64_t>(out, l.limit);
      }
      return Status::ok();
  }
  out.append(r.raw_payload);  // a type this version does not know: copied through
  return Status::ok();
}

// Fills the type-specific fields from `payload`; false if malformed. Bytes after the known
// fields are ignored: a newer minor version may append fields to a payload.
bool decodePayload(std::string_view payload, ChangeRecord& r) {
  Cursor c(payload);
  switch (r.type) {
    case ChangeType::kAppend:
    case ChangeType::kFlags:
    case ChangeType::kExpunge:
    case ChangeType::kPurge: {
      uint32_t n = 0;
      if (!c.get(&n) || n > c.left() / 12) return false;
      r.uids.resize(n);
      for (UidModseq& u : r.uids) {
        if (!c.get(&u.uid) || !c.get(&u.modseq)) return false;
      }
      return true;
    }
    case ChangeType::kCreate:
    case ChangeType::kDelete:
      return c.getString(&r.name);
    case ChangeType::kRename:
      return c.getString(&r.old_name) && c.getString(&r.name);
    case ChangeType::kAcl:
      return c.getString(&r.identifier) && c.getString(&r.rights);
    case ChangeType::kQuota: {
      uint16_t n = 0;
      if (!c.getString(&r.quota_root) || !c.get(&n)) return false;
      for (uint16_t i = 0; i < n; ++i) {
        QuotaLimit l;
        if (!c.getString(&l.resource) || !c.get(&l.limit)) return false;
        r.limits.push_back(std::move(l));
      }
      return true;
    }
  }
  r.raw_payload.assign(payload);
  return true;
}

}  // namespace

std::string changeTypeName(ChangeType type) {
  switch (type) {
    case ChangeType::kAppend:
      return "append";
    case ChangeType::kFlags:
      return "flags";
    case ChangeType::kExpunge:
      return "expunge";
    case ChangeType::kCreate:
      return "create";
    case ChangeType::kRename:
      return "rename";
    case ChangeType::kDelete:
      return "delete";
    case ChangeType::kAcl:
      return "acl";
    case ChangeType::kQuota:
      return "quota";
    case ChangeType::kPurge:
      return "purge";
  }
  return "type-" + std::to_string(static_cast<unsigned>(type));
}

bool isKnownChangeType(ChangeType type) {
  auto v = static_cast<uint16_t>(type);
  return v >= static_cast<uint16_t>(ChangeType::kAppend) &&
         v <= static_cast<uint16_t>(ChangeType::kPurge);
}

std::string encodeSegmentHeader(uint64_t first_seq, uint16_t minor) {
  std::string out(kSegmentHeaderSize, '\0');
  std::memcpy(out.data(), kChangeLogMagic.data(), kChangeLogMagic.size());
  base::putLittleEndian<uint16_t>(out, kLogHMajor, kChangeLogMajor);
  base::putLittleEndian<uint16_t>(out, kLogHMinor, minor);
  base::putLittleEndian<uint32_t>(out, kLogHHeaderSize, kSegmentHeaderSize);
  base::putLittleEndian<uint64_t>(out, kLogHFirstSeq, first_seq);
  // bytes 24..27 reserved (zero); the CRC is always the header's last four bytes.
  base::putLittleEndian<uint32_t>(out, kSegmentHeaderSize - 4,
                  crcOf(0, std::string_view(out).substr(0, kSegmentHeaderSize - 4)));
  return out;
}

HeaderDecode decodeSegmentHeader(std::string_view in) {
  HeaderDecode d;
  auto bad = [&](std::string why) {
    d.state = DecodeState::kBad;
    d.error = "segment header: " + std::move(why);
    return d;
  };
  // Compare what is there of the magic first, so that garbage is "bad" even when short.
  size_t m = std::min(in.size(), kChangeLogMagic.size());
  if (in.substr(0, m) != kChangeLogMagic.substr(0, m)) return bad("bad magic");
  if (in.size() < kLogHFirstSeq) {
    d.state = DecodeState::kIncomplete;
    return d;
  }
  d.header.major = base::getLittleEndian<uint16_t>(in, kLogHMajor);
  d.header.minor = base::getLittleEndian<uint16_t>(in, kLogHMinor);
  d.header.header_size = base::getLittleEndian<uint32_t>(in, kLogHHeaderSize);
  if (d.header.major != kChangeLogMajor) {
    d.unsupported = true;
    return bad("major version " + std::to_string(d.header.major) + " is not supported");
  }
  if (d.header.header_size < kSegmentHeaderSize || d.header.header_size > kMaxSegmentHeaderSize) {
    return bad("header size " + std::to_string(d.header.header_size));
  }
  if (in.size() < d.header.header_size) {
    d.state = DecodeState::kIncomplete;
    return d;
  }
  uint32_t hs = d.header.header_size;
  if (crcOf(0, in.substr(0, hs - 4)) != base::getLittleEndian<uint32_t>(in, hs - 4)) return bad("CRC mismatch");
  d.header.first_seq = base::getLittleEndian<uint64_t>(in, kLogHFirstSeq);
  if (d.header.first_seq == 0) return bad("first sequence number 0");
  d.state = DecodeState::kValid;
  return d;
}

FrameDecode decodeFrame(std::string_view in) {
  FrameDecode d;
  if (in.size() < kRecordFrameSize) {
    d.state = DecodeState::kIncomplete;
    return d;
  }
  uint32_t len = base::getLittleEndian<uint32_t>(in, 0);
  if (len < kMinRecordBody || len > kMaxRecordBody) {
    d.state = DecodeState::kBad;
    d.error = "record length " + std::to_string(len) + " out of range";
    return d;
  }
  d.size = kRecordFrameSize + size_t{len};
  if (in.size() < d.size) {
    d.state = DecodeState::kIncomplete;
    return d;
  }
  std::string_view body = in.substr(kRecordFrameSize, len);
  if (frameCrc(in.substr(0, 4), body) != base::getLittleEndian<uint32_t>(in, 4)) {
    d.state = DecodeState::kBad;
    d.error = "record CRC mismatch";
    return d;
  }
  d.state = DecodeState::kValid;
  d.seq = base::getLittleEndian<uint64_t>(body, kBSeq);
  d.body = body;
  return d;
}

Result<std::string> encodeFrame(const ChangeRecord& record) {
  if (isKnownChangeType(record.type) && !onlyOwnFields(record)) {
    return Status::invalid("change record of type " + changeTypeName(record.type) +
                           " has fields of another type set");
  }
  if (record.mailbox_id.size() > kMaxString) {
    return Status::tooBig("mailbox id longer than 65535 bytes");
  }
  std::string out(kRecordFrameSize + kBId, '\0');
  int64_t t = record.time_usec;
  if (t == 0) {
    t = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::system_clock::now().time_since_epoch())
            .count();
  }
  base::putLittleEndian<int64_t>(out, kRecordFrameSize + kBTime, t);
  base::putLittleEndian<uint16_t>(out, kRecordFrameSize + kBType, static_cast<uint16_t>(record.type));
  base::putLittleEndian<uint16_t>(out, kRecordFrameSize + kBIdLen, static_cast<uint16_t>(record.mailbox_id.size()));
  out.append(record.mailbox_id);
  DARIUS_RETURN_IF_ERROR(encodePayload(record, out));
  size_t body = out.size() - kRecordFrameSize;
  if (body > kMaxRecordBody) {
    return Status::tooBig("change record of " + std::to_string(body) + " bytes (limit " +
                          std::to_string(kMaxRecordBody) + ")");
  }
  base::putLittleEndian<uint32_t>(out, 0, static_cast<uint32_t>(body));
  return out;
}

void finishFrame(std::string& frame, uint64_t seq) {
  base::putLittleEndian<uint64_t>(frame, kRecordFrameSize + kBSeq, seq);
  std::string_view v(frame);
  base::putLittleEndian<uint32_t>(frame, 4, frameCrc(v.substr(0, 4), v.substr(kRecordFrameSize)));
}

Result<ChangeRecord> decodeBody(std::string_view body) {
  if (body.size() < kMinRecordBody) return Status::corruption("record body too short");
  ChangeRecord r;
  r.seq = base::getLittleEndian<uint64_t>(body, kBSeq);
  r.time_usec = base::getLittleEndian<int64_t>(body, kBTime);
  r.type = static_cast<ChangeType>(base::getLittleEndian<uint16_t>(body, kBType));
  uint16_t id_len = base::getLittleEndian<uint16_t>(body, kBIdLen);
  if (body.size() - kBId < id_len) return Status::corruption("record mailbox id overruns body");
  r.mailbox_id.assign(body.substr(kBId, id_len));
  if (!decodePayload(body.substr(kBId + id_len), r)) {
    return Status::corruption("malformed " + changeTypeName(r.type) + " payload");
  }
  return r;
}

}  // namespace darius::mailbox
