#include "mailbox/cache_format.h"

#include <cstring>

#include "mailbox/index_format.h"

namespace darius::mailbox {
namespace {

using base::Result;
using base::Status;

enum Tag : uint8_t {
  kTagEnvelope = 1,
  kTagBodystructure = 2,
  kTagBody = 3,
  kTagHeaders = 4,
  kTagSections = 5,
  kTagPreview = 6,
  kTagGuid = 7,
};

void putU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t getU32(std::string_view in, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(in[at + i])) << (8 * i);
  return v;
}

void putField(std::string& out, Tag tag, const std::string& value) {
  if (value.empty()) return;
  out.push_back(static_cast<char>(tag));
  putU32(out, static_cast<uint32_t>(value.size()));
  out += value;
}

}  // namespace

std::string encodeCacheHeader(uint64_t generation) {
  std::string out(kCacheHeaderSize, '\0');
  std::memcpy(out.data(), kCacheMagic.data(), kCacheMagic.size());
  out[8] = static_cast<char>(kCacheMajor & 0xff);
  out[9] = static_cast<char>(kCacheMajor >> 8);
  out[10] = static_cast<char>(kCacheMinor & 0xff);
  out[11] = static_cast<char>(kCacheMinor >> 8);
  for (int i = 0; i < 4; ++i) out[12 + i] = static_cast<char>((kCacheHeaderSize >> (8 * i)) & 0xff);
  for (int i = 0; i < 8; ++i) out[16 + i] = static_cast<char>((generation >> (8 * i)) & 0xff);
  uint32_t crc = crc32Of(std::string_view(out).substr(0, 28));
  for (int i = 0; i < 4; ++i) out[28 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  return out;
}

Result<uint64_t> decodeCacheHeader(std::string_view in) {
  if (in.size() < kCacheHeaderSize) return Status::corruption("cache header truncated");
  if (in.substr(0, 8) != kCacheMagic) return Status::corruption("not a darius cache file");
  uint16_t major = static_cast<uint16_t>(static_cast<uint8_t>(in[8]) |
                                         (static_cast<uint8_t>(in[9]) << 8));
  if (major != kCacheMajor) {
    return Status::corruption("cache version " + std::to_string(major) + " is not supported");
  }
  if (getU32(in, 12) != kCacheHeaderSize) return Status::corruption("cache header size");
  if (crc32Of(in.substr(0, 28)) != getU32(in, 28)) {
    return Status::corruption("cache header CRC mismatch");
  }
  uint64_t gen = 0;
  for (int i = 0; i < 8; ++i) gen |= static_cast<uint64_t>(static_cast<uint8_t>(in[16 + i])) << (8 * i);
  return gen;
}

std::string encodeCacheRecord(const CacheEntry& e, std::string_view guid) {
  std::string payload;
  putField(payload, kTagGuid, std::string(guid));
  putField(payload, kTagEnvelope, e.envelope);
  putField(payload, kTagBodystructure, e.bodystructure);
  putField(payload, kTagBody, e.body);
  putField(payload, kTagHeaders, e.headers);
  putField(payload, kTagSections, e.sections);
  putField(payload, kTagPreview, e.preview);
  std::string out;
  out.reserve(kCacheRecordOverhead + payload.size());
  putU32(out, static_cast<uint32_t>(payload.size()));
  putU32(out, crc32Of(payload));
  out += payload;
  return out;
}

Result<CacheEntry> decodeCacheRecord(std::string_view in, std::string* guid) {
  if (guid != nullptr) guid->clear();
  if (in.size() < kCacheRecordOverhead) return Status::corruption("cache record truncated");
  uint32_t len = getU32(in, 0);
  if (len > kMaxCacheRecord || len > in.size() - kCacheRecordOverhead) {
    return Status::corruption("cache record length " + std::to_string(len) +
                              " runs past the file");
  }
  std::string_view payload = in.substr(kCacheRecordOverhead, len);
  if (crc32Of(payload) != getU32(in, 4)) return Status::corruption("cache record CRC mismatch");
  CacheEntry e;
  size_t at = 0;
  while (at < payload.size()) {
    if (payload.size() - at < 5) return Status::corruption("cache field truncated");
    uint8_t tag = static_cast<uint8_t>(payload[at]);
    uint32_t n = getU32(payload, at + 1);
    at += 5;
    if (n > payload.size() - at) return Status::corruption("cache field runs past its record");
    std::string value(payload.substr(at, n));
    at += n;
    switch (tag) {
      case kTagEnvelope: e.envelope = std::move(value); break;
      case kTagBodystructure: e.bodystructure = std::move(value); break;
      case kTagBody: e.body = std::move(value); break;
      case kTagHeaders: e.headers = std::move(value); break;
      case kTagSections: e.sections = std::move(value); break;
      case kTagPreview: e.preview = std::move(value); break;
      case kTagGuid:
        if (guid != nullptr) *guid = std::move(value);
        break;
      default: break;  // a field of a later minor version
    }
  }
  return e;
}

Result<CacheEntry> decodeCacheRecordOf(std::string_view in, std::string_view want) {
  std::string guid;
  auto e = decodeCacheRecord(in, &guid);
  if (!e.ok()) return e;
  if (!guid.empty() && guid != want) return Status::corruption("cache record of another message");
  if (guid.empty() && *e == CacheEntry{}) return Status::corruption("empty cache record");
  return e;
}

}  // namespace darius::mailbox
