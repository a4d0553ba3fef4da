#include "mailbox/journal_format.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>

#include "lib/base/digits.h"
#include "lib/base/little_endian.h"

namespace darius::mailbox {

using base::appendLittleEndian;
using base::getLittleEndian;
using base::Result;
using base::Status;

namespace {

// Header field offsets (docs/formats/journal.md, "Segment header").
constexpr size_t kJhMajor = 8, kJhMinor = 10, kJhHeaderSize = 12, kJhSegment = 16, kJhCrc = 28;
constexpr size_t kMaxJournalString = 0xffff;
constexpr size_t kAppendEntrySize = kIndexRecordSize + 8;

uint32_t journalCrc(uint32_t crc, std::string_view bytes) {
  uLong c = crc;
  while (!bytes.empty()) {
    uInt n = static_cast<uInt>(std::min<size_t>(bytes.size(), 1u << 30));
    c = crc32(c, reinterpret_cast<const Bytef*>(bytes.data()), n);
    bytes.remove_prefix(n);
  }
  return static_cast<uint32_t>(c);
}

// The frame CRC covers the segment number, the length field and the body: a length bent by
// damage cannot pair with a body that happens to check, and bytes of another segment (a file
// reused, a block misplaced) never read as this one's.
uint32_t frameCrcOf(uint64_t segment, std::string_view len_field, std::string_view body) {
  std::string seg;
  appendLittleEndian<uint64_t>(seg, segment);
  return journalCrc(journalCrc(journalCrc(0, seg), len_field), body);
}

std::string frameJournalBody(uint64_t segment, const std::string& body) {
  std::string out;
  out.reserve(kJournalFrameSize + body.size());
  appendLittleEndian<uint32_t>(out, static_cast<uint32_t>(body.size()));
  appendLittleEndian<uint32_t>(out, frameCrcOf(segment, std::string_view(out).substr(0, 4), body));
  out += body;
  return out;
}

Status putJournalString(std::string& out, std::string_view s, const char* what) {
  if (s.size() > kMaxJournalString) return Status::tooBig(std::string("journal: ") + what + " too long");
  appendLittleEndian<uint16_t>(out, static_cast<uint16_t>(s.size()));
  out.append(s);
  return Status::ok();
}

// Reads a u16-prefixed string at `*at`, advancing it.
bool takeJournalString(std::string_view body, size_t* at, std::string* out) {
  if (body.size() - *at < 2) return false;
  size_t n = getLittleEndian<uint16_t>(body, *at);
  *at += 2;
  if (body.size() - *at < n) return false;
  out->assign(body.substr(*at, n));
  *at += n;
  return true;
}

}  // namespace

std::string encodeJournalSegmentHeader(const JournalSegmentHeader& h) {
  std::string out(kJournalMagic);
  appendLittleEndian<uint16_t>(out, h.major);
  appendLittleEndian<uint16_t>(out, h.minor);
  appendLittleEndian<uint32_t>(out, kJournalHeaderSize);
  appendLittleEndian<uint64_t>(out, h.segment);
  appendLittleEndian<uint32_t>(out, 0);  // reserved
  appendLittleEndian<uint32_t>(out, journalCrc(0, out));
  return out;
}

Result<JournalSegmentHeader> decodeJournalSegmentHeader(std::string_view bytes) {
  if (bytes.size() < kJournalHeaderSize) return Status::corruption("journal: short segment header");
  if (bytes.substr(0, 8) != kJournalMagic) return Status::corruption("journal: bad magic");
  if (getLittleEndian<uint32_t>(bytes, kJhCrc) != journalCrc(0, bytes.substr(0, kJhCrc))) {
    return Status::corruption("journal: segment header CRC mismatch");
  }
  JournalSegmentHeader h;
  h.major = getLittleEndian<uint16_t>(bytes, kJhMajor);
  h.minor = getLittleEndian<uint16_t>(bytes, kJhMinor);
  if (h.major != kJournalMajor) {
    return Status::notSupported("journal: major version " + std::to_string(h.major));
  }
  if (getLittleEndian<uint32_t>(bytes, kJhHeaderSize) != kJournalHeaderSize) {
    return Status::corruption("journal: bad header size");
  }
  h.segment = getLittleEndian<uint64_t>(bytes, kJhSegment);
  return h;
}

std::string encodeJournalMessage(uint64_t segment, const Guid& guid, std::string_view bytes) {
  std::string body;
  body.reserve(1 + guid.size() + bytes.size());
  body += static_cast<char>(JournalRecordType::kMessage);
  body.append(guidBytes(guid));
  body.append(bytes);
  return frameJournalBody(segment, body);
}

Result<std::string> encodeJournalAppend(uint64_t segment, const JournalAppend& a) {
  std::string body;
  body += static_cast<char>(JournalRecordType::kAppend);
  DARIUS_RETURN_IF_ERROR(putJournalString(body, a.mailbox_dir, "mailbox directory"));
  DARIUS_RETURN_IF_ERROR(putJournalString(body, a.unique_id, "unique id"));
  appendLittleEndian<uint32_t>(body, a.uidvalidity);
  appendLittleEndian<uint64_t>(body, a.generation);
  appendLittleEndian<uint32_t>(body, a.first_position);
  appendLittleEndian<uint32_t>(body, static_cast<uint32_t>(a.entries.size()));
  for (const JournalAppendEntry& e : a.entries) {
    body += encodeIndexRecord(e.record);
    appendLittleEndian<uint64_t>(body, e.message_offset);
  }
  if (body.size() > kMaxJournalBody) return Status::tooBig("journal: append record too large");
  return frameJournalBody(segment, body);
}

Result<JournalFrame> readJournalFrame(std::string_view seg, uint64_t segment, uint64_t offset) {
  if (offset >= seg.size()) return Status::notFound("end of segment");
  std::string_view rest = seg.substr(offset);
  if (rest.find_first_not_of('\0') == std::string_view::npos) {
    return Status::notFound("end of segment (zeros)");
  }
  if (rest.size() < kJournalFrameSize) return Status::corruption("journal: torn frame header");
  uint32_t len = getLittleEndian<uint32_t>(rest, 0);
  if (len == 0 || len > kMaxJournalBody || len > rest.size() - kJournalFrameSize) {
    return Status::corruption("journal: bad record length at offset " + std::to_string(offset));
  }
  std::string_view body = rest.substr(kJournalFrameSize, len);
  if (getLittleEndian<uint32_t>(rest, 4) != frameCrcOf(segment, rest.substr(0, 4), body)) {
    return Status::corruption("journal: record CRC mismatch at offset " + std::to_string(offset));
  }
  JournalFrame f;
  f.type = static_cast<JournalRecordType>(static_cast<uint8_t>(body[0]));
  f.body = body.substr(1);
  f.next = offset + kJournalFrameSize + len;
  return f;
}

Result<JournalMessage> decodeJournalMessage(std::string_view body) {
  JournalMessage m;
  if (body.size() < m.guid.size()) return Status::corruption("journal: short message record");
  std::copy(body.begin(), body.begin() + static_cast<ptrdiff_t>(m.guid.size()), m.guid.begin());
  m.bytes = body.substr(m.guid.size());
  return m;
}

Result<JournalAppend> decodeJournalAppend(std::string_view body) {
  JournalAppend a;
  size_t at = 0;
  if (!takeJournalString(body, &at, &a.mailbox_dir) || !takeJournalString(body, &at, &a.unique_id)) {
    return Status::corruption("journal: short append record");
  }
  if (body.size() - at < 20) return Status::corruption("journal: short append record");
  a.uidvalidity = getLittleEndian<uint32_t>(body, at);
  a.generation = getLittleEndian<uint64_t>(body, at + 4);
  a.first_position = getLittleEndian<uint32_t>(body, at + 12);
  uint32_t count = getLittleEndian<uint32_t>(body, at + 16);
  at += 20;
  if (count == 0 || (body.size() - at) / kAppendEntrySize != count ||
      (body.size() - at) % kAppendEntrySize != 0) {
    return Status::corruption("journal: append record's entries do not fit its length");
  }
  a.entries.reserve(count);
  for (uint32_t i = 0; i < count; ++i, at += kAppendEntrySize) {
    auto r = decodeIndexRecord(body.substr(at, kIndexRecordSize));
    if (!r.ok()) return Status::corruption("journal: append entry: " + r.status().message());
    a.entries.push_back({*r, getLittleEndian<uint64_t>(body, at + kIndexRecordSize)});
  }
  if (a.mailbox_dir.empty()) return Status::corruption("journal: append record without a mailbox");
  return a;
}

std::string journalSegmentName(uint64_t segment) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx.journal", static_cast<unsigned long long>(segment));
  return buf;
}

bool parseJournalSegmentName(std::string_view name, uint64_t* segment) {
  constexpr std::string_view kExt = ".journal";
  if (name.size() != 16 + kExt.size() || name.substr(16) != kExt) return false;
  uint64_t v = 0;
  for (char c : name.substr(0, 16)) {
    // Lower case only, as journalSegmentName writes: one segment, one name.
    const int d = (c >= 'A' && c <= 'F') ? -1 : base::hexDigitValue(c);
    if (d < 0) return false;
    v = v * 16 + static_cast<uint64_t>(d);
  }
  *segment = v;
  return true;
}

}  // namespace darius::mailbox
