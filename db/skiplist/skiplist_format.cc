#include "db/skiplist/skiplist_format.h"

#include <array>
#include <cstring>

namespace darius::db::skiplist {

using base::Result;
using base::Status;

namespace {

std::array<uint32_t, 256> makeTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[i] = c;
  }
  return t;
}

const std::array<uint32_t, 256> kTable = makeTable();

}  // namespace

std::string atOffset(uint64_t off) { return " at offset " + std::to_string(off); }

uint32_t crc32c(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = kTable[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

std::string encodeHeader(const FileHeader& in) {
  FileHeader h = in;
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.major = kMajorVersion;
  h.minor = kMinorVersion;
  h.header_size = kHeaderSize;
  h.reserved = 0;
  h.crc = crc32c(0, &h, offsetof(FileHeader, crc));
  return std::string(reinterpret_cast<const char*>(&h), sizeof(h));
}

Result<FileHeader> decodeHeader(std::string_view file) {
  if (file.size() < kHeaderSize) {
    if (file.size() >= 8 && std::memcmp(file.data(), kMagic, 8) != 0) {
      return Status::invalid("not a skiplist database (bad magic)");
    }
    return Status::corruption("file too short for a header (" + std::to_string(file.size()) +
                              " bytes)" + atOffset(0));
  }
  FileHeader h;
  std::memcpy(&h, file.data(), sizeof(h));
  if (std::memcmp(h.magic, kMagic, 8) != 0) {
    return Status::invalid("not a skiplist database (bad magic)");
  }
  if (crc32c(0, &h, offsetof(FileHeader, crc)) != h.crc) {
    return Status::corruption("header CRC mismatch" + atOffset(0));
  }
  if (h.major != kMajorVersion) {
    return Status::invalid("unsupported skiplist major version " + std::to_string(h.major));
  }
  if (h.header_size < kHeaderSize || h.committed_end < kFirstRecord ||
      h.committed_end % 8 != 0) {
    return Status::corruption("header fields out of range" + atOffset(0));
  }
  return h;
}

Result<Record> parseRecord(std::string_view file, uint64_t end, uint64_t offset,
                           bool verify_crc) {
  if (end > file.size()) end = file.size();
  if (offset % 8 != 0 || offset < kHeadOffset || offset + sizeof(RecordHeader) > end) {
    return Status::corruption("record pointer out of bounds" + atOffset(offset));
  }
  RecordHeader h;
  std::memcpy(&h, file.data() + offset, sizeof(h));
  Record r;
  r.offset = offset;
  r.type = h.type;
  r.level = h.level;
  r.crc = h.crc;
  bool linked = h.type == kHead || h.type == kAdd || h.type == kDelete;
  if (!(linked || h.type == kCommit)) {
    return Status::corruption("bad record type " + std::to_string(h.type) + atOffset(offset));
  }
  if (linked ? (h.level < 1 || h.level > kMaxLevel) : (h.level != 0 || h.key_len != 0 ||
                                                        h.value_len != sizeof(CommitBody))) {
    return Status::corruption("bad record level/length fields" + atOffset(offset));
  }
  r.size = recordSize(h.level, h.key_len, h.value_len);
  if (r.size > end - offset)
    return Status::corruption("record runs past the end" + atOffset(offset));
  const char* p = file.data() + offset + sizeof(RecordHeader);
  r.slots = p;
  p += 16 * uint64_t(h.level);
  r.key = {p, h.key_len};
  r.value = {p + h.key_len, h.value_len};
  if (verify_crc && !recordCrcOk(r))
    return Status::corruption("record CRC mismatch" + atOffset(offset));
  return r;
}

bool recordCrcOk(const Record& r) {
  uint64_t off = r.offset;
  uint32_t c = crc32c(0, &off, 8);
  c = crc32c(c, r.slots - sizeof(RecordHeader) + 4, 12);
  c = crc32c(c, r.key.data(), r.key.size());
  c = crc32c(c, r.value.data(), r.value.size());
  return c == r.crc;
}

std::string encodeRecord(uint64_t offset, uint8_t type, int level, const uint64_t* slots,
                         std::string_view key, std::string_view value) {
  std::string out(recordSize(level, key.size(), value.size()), '\0');
  RecordHeader h{};
  h.type = type;
  h.level = static_cast<uint8_t>(level);
  h.key_len = static_cast<uint32_t>(key.size());
  h.value_len = static_cast<uint32_t>(value.size());
  uint32_t c = crc32c(0, &offset, 8);
  c = crc32c(c, reinterpret_cast<const char*>(&h) + 4, 12);
  c = crc32c(c, key.data(), key.size());
  h.crc = crc32c(c, value.data(), value.size());
  char* p = out.data();
  std::memcpy(p, &h, sizeof(h));
  p += sizeof(h);
  if (slots != nullptr) std::memcpy(p, slots, 16 * size_t(level));
  p += 16 * size_t(level);
  if (!key.empty()) std::memcpy(p, key.data(), key.size());
  if (!value.empty()) std::memcpy(p + key.size(), value.data(), value.size());
  return out;
}

std::string encodeCommit(uint64_t offset, const CommitBody& body) {
  return encodeRecord(offset, kCommit, 0, nullptr, {},
                      std::string_view(reinterpret_cast<const char*>(&body), sizeof(body)));
}

}  // namespace darius::db::skiplist
