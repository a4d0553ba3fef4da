#include "mailbox/quota_format.h"

#include <cstring>

#include "mailbox/mailbox_name.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

// Usage records are little-endian like the index (index_format.cc); db values big-endian like
// the mailbox list's (mailbox-list.md): each follows its neighbours.
template <typename T>
void putLe(std::string& out, size_t at, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
template <typename T>
T getLe(std::string_view in, size_t at) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<uint8_t>(in[at + i])) << (8 * i);
  return v;
}
void putBe64(std::string& out, uint64_t v) {
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t getBe64(std::string_view in, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(in[at + i]);
  return v;
}

// Usage record fixed part (docs/formats/quota.md, "Usage records").
constexpr size_t kUMajor = 8, kUMinor = 10, kUFlags = 12, kUBoot = 16, kUStorage = 32,
                 kUMessages = 40, kUMailboxes = 48, kUNameLength = 56, kUCrc = 60;
constexpr uint32_t kUPending = 1u << 0;
constexpr size_t kLimitsSize = 27;

}  // namespace

std::string_view quotaResourceName(QuotaResource r) {
  switch (r) {
    case QuotaResource::kStorage: return "STORAGE";
    case QuotaResource::kMessage: return "MESSAGE";
    case QuotaResource::kMailbox: return "MAILBOX";
  }
  return "?";
}

std::optional<QuotaResource> parseQuotaResource(std::string_view name) {
  for (QuotaResource r : kQuotaResources) {
    std::string_view want = quotaResourceName(r);
    if (name.size() != want.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i) same = upper(name[i]) == want[i];
    if (same) return r;
  }
  return std::nullopt;
}

bool QuotaLimits::any() const {
  for (const auto& l : limit) {
    if (l) return true;
  }
  return false;
}

QuotaUsage& QuotaUsage::operator+=(const QuotaUsage& o) {
  for (size_t i = 0; i < kQuotaResourceCount; ++i) value[i] += o.value[i];
  return *this;
}

QuotaUsage& QuotaUsage::operator-=(const QuotaUsage& o) {
  for (size_t i = 0; i < kQuotaResourceCount; ++i) {
    value[i] = value[i] >= o.value[i] ? value[i] - o.value[i] : 0;
  }
  return *this;
}

QuotaUsage operator+(QuotaUsage a, const QuotaUsage& b) { return a += b; }
QuotaUsage operator-(QuotaUsage a, const QuotaUsage& b) { return a -= b; }

QuotaUsage quotaCharge(const IndexHeader& h) {
  QuotaUsage u;
  u[QuotaResource::kStorage] = h.quota_used;
  u[QuotaResource::kMessage] =
      h.num_records >= h.num_expunged ? h.num_records - h.num_expunged : 0;
  u[QuotaResource::kMailbox] = 1;
  return u;
}

uint64_t reportedUsage(const QuotaUsage& u, QuotaResource r) {
  if (r != QuotaResource::kStorage) return u[r];
  uint64_t bytes = u[r];
  return bytes / 1024 + (bytes % 1024 != 0 ? 1 : 0);
}

namespace {

// The limit in the resource's internal unit, as a 128-bit number: KiB * 1024 cannot overflow.
unsigned __int128 limitOf(const QuotaLimits& limits, QuotaResource r) {
  unsigned __int128 l = *limits[r];
  return r == QuotaResource::kStorage ? l * 1024 : l;
}

}  // namespace

std::optional<QuotaResource> wouldExceed(const QuotaLimits& limits, const QuotaUsage& now,
                                         const QuotaUsage& add) {
  for (QuotaResource r : kQuotaResources) {
    if (!limits[r] || add[r] == 0) continue;
    unsigned __int128 after = static_cast<unsigned __int128>(now[r]) + add[r];
    if (after > limitOf(limits, r)) return r;
  }
  return std::nullopt;
}

uint64_t usedPercent(const QuotaLimits& limits, const QuotaUsage& now, QuotaResource r) {
  if (!limits[r]) return 0;
  unsigned __int128 l = limitOf(limits, r);
  if (l == 0) return now[r] == 0 ? 0 : 100;
  unsigned __int128 p = static_cast<unsigned __int128>(now[r]) * 100 / l;
  return p > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(p);
}

std::string encodeQuotaLimits(const QuotaLimits& limits) {
  std::string out;
  out.push_back(static_cast<char>(kQuotaLimitsMajor));
  out.push_back(static_cast<char>(kQuotaLimitsMinor));
  uint8_t mask = 0;
  for (size_t i = 0; i < kQuotaResourceCount; ++i) {
    if (limits.limit[i]) mask |= static_cast<uint8_t>(1u << i);
  }
  out.push_back(static_cast<char>(mask));
  for (const auto& l : limits.limit) putBe64(out, l.value_or(0));
  return out;
}

Result<QuotaLimits> decodeQuotaLimits(std::string_view value, std::string_view key) {
  auto bad = [&](std::string why) {
    return Status::corruption("quota record " + printableBytes(key) + ": " + why);
  };
  if (value.size() < 2) return bad("too short");
  if (static_cast<uint8_t>(value[0]) > kQuotaLimitsMajor) {
    return Status::notSupported("quota record " + printableBytes(key) + ": major version " +
                                std::to_string(static_cast<uint8_t>(value[0])));
  }
  if (static_cast<uint8_t>(value[0]) != kQuotaLimitsMajor) return bad("bad major version");
  // Minor versions only append fields (docs/formats/quota.md, "Versioning").
  if (value.size() < kLimitsSize) return bad("too short");
  if (static_cast<uint8_t>(value[1]) == 0 && value.size() != kLimitsSize) {
    return bad("bytes after the last field of a 1.0 value");
  }
  uint8_t mask = static_cast<uint8_t>(value[2]);
  if ((mask & ~0x07u) != 0) return bad("unknown resource bits");
  QuotaLimits out;
  for (size_t i = 0; i < kQuotaResourceCount; ++i) {
    uint64_t v = getBe64(value, 3 + 8 * i);
    bool set = (mask >> i) & 1;
    if (!set && v != 0) return bad("a value for a resource that is not limited");
    if (v > kMaxQuotaLimit) return bad("limit over 2^63-1");
    if (set) out.limit[i] = v;
  }
  return out;
}

std::string encodeQuotaUsageRecord(const QuotaUsageRecord& r) {
  std::string out(kQuotaUsageFixedSize, '\0');
  std::memcpy(out.data(), kQuotaUsageMagic.data(), kQuotaUsageMagic.size());
  putLe<uint16_t>(out, kUMajor, kQuotaUsageMajor);
  putLe<uint16_t>(out, kUMinor, kQuotaUsageMinor);
  putLe<uint32_t>(out, kUFlags, r.pending ? kUPending : 0);
  std::memcpy(out.data() + kUBoot, r.boot.data(), r.boot.size());
  putLe<uint64_t>(out, kUStorage, r.usage[QuotaResource::kStorage]);
  putLe<uint64_t>(out, kUMessages, r.usage[QuotaResource::kMessage]);
  putLe<uint64_t>(out, kUMailboxes, r.usage[QuotaResource::kMailbox]);
  putLe<uint32_t>(out, kUNameLength, static_cast<uint32_t>(r.root.size()));
  std::string covered = out.substr(0, kUCrc) + r.root;
  putLe<uint32_t>(out, kUCrc, crc32Of(covered));
  return out + r.root;
}

Result<QuotaUsageRecord> decodeQuotaUsageRecord(std::string_view bytes) {
  auto bad = [](std::string why) { return Status::corruption("quota usage record: " + why); };
  if (bytes.size() < kQuotaUsageFixedSize) return bad("short (" + std::to_string(bytes.size()) + " bytes)");
  if (bytes.substr(0, kQuotaUsageMagic.size()) != kQuotaUsageMagic) return bad("bad magic");
  uint16_t major = getLe<uint16_t>(bytes, kUMajor);
  if (major > kQuotaUsageMajor) {
    return Status::notSupported("quota usage record: major version " + std::to_string(major));
  }
  if (major != kQuotaUsageMajor) return bad("bad major version");
  uint32_t n = getLe<uint32_t>(bytes, kUNameLength);
  if (n == 0 || n > kMaxMailboxNameLength) return bad("bad name length");
  if (bytes.size() != kQuotaUsageFixedSize + n) return bad("size does not match the name");
  std::string covered = std::string(bytes.substr(0, kUCrc)) +
                        std::string(bytes.substr(kQuotaUsageFixedSize));
  if (getLe<uint32_t>(bytes, kUCrc) != crc32Of(covered)) return bad("CRC mismatch");
  uint32_t flags = getLe<uint32_t>(bytes, kUFlags);
  if ((flags & ~kUPending) != 0) return bad("unknown flags");
  QuotaUsageRecord r;
  r.pending = (flags & kUPending) != 0;
  std::memcpy(r.boot.data(), bytes.data() + kUBoot, r.boot.size());
  r.usage[QuotaResource::kStorage] = getLe<uint64_t>(bytes, kUStorage);
  r.usage[QuotaResource::kMessage] = getLe<uint64_t>(bytes, kUMessages);
  r.usage[QuotaResource::kMailbox] = getLe<uint64_t>(bytes, kUMailboxes);
  r.root = std::string(bytes.substr(kQuotaUsageFixedSize));
  return r;
}

}  // namespace darius::mailbox
