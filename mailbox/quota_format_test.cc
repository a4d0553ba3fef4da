// Quota values and encodings: limit arithmetic at the 64-bit edges, the quotas.db value and
// the usage record byte for byte, and every malformed form a reader must refuse (kCorruption,
// never a crash or a guess).
#include "mailbox/quota_format.h"

#include <gtest/gtest.h>

#include "mailbox/index_format.h"

namespace darius::mailbox {
namespace quota_format_test {

QuotaUsage usage(uint64_t bytes, uint64_t messages, uint64_t mailboxes) {
  QuotaUsage u;
  u[QuotaResource::kStorage] = bytes;
  u[QuotaResource::kMessage] = messages;
  u[QuotaResource::kMailbox] = mailboxes;
  return u;
}

TEST(QuotaFormat, ResourceNames) {
  EXPECT_EQ(parseQuotaResource("storage"), QuotaResource::kStorage);
  EXPECT_EQ(parseQuotaResource("MESSAGE"), QuotaResource::kMessage);
  EXPECT_EQ(parseQuotaResource("MailBox"), QuotaResource::kMailbox);
  EXPECT_EQ(parseQuotaResource("ANNOTATION-STORAGE"), std::nullopt);
  EXPECT_EQ(parseQuotaResource("STORAGEX"), std::nullopt);
  EXPECT_EQ(parseQuotaResource(""), std::nullopt);
  EXPECT_EQ(quotaResourceName(QuotaResource::kMailbox), "MAILBOX");
}

TEST(QuotaFormat, WouldExceedIsExactAtTheLimit) {
  QuotaLimits l;
  l[QuotaResource::kStorage] = 10;  // KiB
  l[QuotaResource::kMessage] = 3;
  EXPECT_EQ(wouldExceed(l, usage(0, 0, 0), usage(10240, 3, 0)), std::nullopt);
  EXPECT_EQ(wouldExceed(l, usage(1, 0, 0), usage(10240, 1, 0)), QuotaResource::kStorage);
  EXPECT_EQ(wouldExceed(l, usage(0, 3, 0), usage(1, 1, 0)), QuotaResource::kMessage);
  // MAILBOX is not limited here: any number of mailboxes fits.
  EXPECT_EQ(wouldExceed(l, usage(0, 0, 1000), usage(0, 0, 1)), std::nullopt);
  // What does not grow never fails, even over a lowered limit.
  EXPECT_EQ(wouldExceed(l, usage(99999, 99, 0), usage(0, 0, 0)), std::nullopt);
  // A limit of 0 forbids any use.
  QuotaLimits zero;
  zero[QuotaResource::kMailbox] = 0;
  EXPECT_EQ(wouldExceed(zero, usage(0, 0, 0), usage(0, 0, 1)), QuotaResource::kMailbox);
}

TEST(QuotaFormat, NoOverflowAtSixtyFourBits) {
  QuotaLimits l;
  l[QuotaResource::kStorage] = kMaxQuotaLimit;  // KiB: far beyond 2^64 bytes
  l[QuotaResource::kMessage] = kMaxQuotaLimit;
  EXPECT_EQ(wouldExceed(l, usage(UINT64_MAX, kMaxQuotaLimit - 1, 0), usage(UINT64_MAX, 1, 0)),
            std::nullopt);
  EXPECT_EQ(wouldExceed(l, usage(0, kMaxQuotaLimit, 0), usage(0, 1, 0)), QuotaResource::kMessage);
  EXPECT_EQ(usedPercent(l, usage(UINT64_MAX, 0, 0), QuotaResource::kStorage), 0u);
  QuotaLimits small;
  small[QuotaResource::kStorage] = 1;
  EXPECT_EQ(usedPercent(small, usage(UINT64_MAX, 0, 0), QuotaResource::kStorage),
            static_cast<uint64_t>((static_cast<unsigned __int128>(UINT64_MAX) * 100) / 1024));
}

TEST(QuotaFormat, ReportedStorageRoundsUp) {
  EXPECT_EQ(reportedUsage(usage(0, 0, 0), QuotaResource::kStorage), 0u);
  EXPECT_EQ(reportedUsage(usage(1, 0, 0), QuotaResource::kStorage), 1u);
  EXPECT_EQ(reportedUsage(usage(1024, 0, 0), QuotaResource::kStorage), 1u);
  EXPECT_EQ(reportedUsage(usage(1025, 0, 0), QuotaResource::kStorage), 2u);
  EXPECT_EQ(reportedUsage(usage(UINT64_MAX, 0, 0), QuotaResource::kStorage),
            (UINT64_MAX / 1024) + 1);
  EXPECT_EQ(reportedUsage(usage(0, 7, 0), QuotaResource::kMessage), 7u);
}

TEST(QuotaFormat, ChargeCountsLiveMessagesOnly) {
  IndexHeader h;
  h.num_records = 10;
  h.num_expunged = 4;
  h.quota_used = 12345;
  EXPECT_EQ(quotaCharge(h), usage(12345, 6, 1));
  // Subtraction saturates: a record that disagrees never wraps around.
  EXPECT_EQ(usage(5, 1, 1) - usage(7, 2, 0), usage(0, 0, 1));
}

TEST(QuotaFormat, LimitsBytes) {
  QuotaLimits l;
  l[QuotaResource::kStorage] = 0x0102030405060708;
  l[QuotaResource::kMailbox] = 5;
  std::string v = encodeQuotaLimits(l);
  EXPECT_EQ(v, std::string("\x01\x00\x05"
                           "\x01\x02\x03\x04\x05\x06\x07\x08"
                           "\x00\x00\x00\x00\x00\x00\x00\x00"
                           "\x00\x00\x00\x00\x00\x00\x00\x05",
                           27));
  auto back = decodeQuotaLimits(v, "user/alice");
  ASSERT_TRUE(back.ok()) << back.status().toString();
  EXPECT_EQ(*back, l);
  auto none = decodeQuotaLimits(encodeQuotaLimits(QuotaLimits{}), "k");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->any());
}

TEST(QuotaFormat, LimitsRefuseWhatNoWriterMakes) {
  QuotaLimits l;
  l[QuotaResource::kMessage] = 9;
  const std::string good = encodeQuotaLimits(l);
  auto code = [](std::string v) { return decodeQuotaLimits(v, "user/x").status().code(); };
  EXPECT_EQ(code(""), base::Code::kCorruption);
  EXPECT_EQ(code(good.substr(0, 26)), base::Code::kCorruption);
  EXPECT_EQ(code(good + "x"), base::Code::kCorruption);      // 1.0 ends there
  std::string newer_minor = good + "x";
  newer_minor[1] = 1;
  EXPECT_TRUE(decodeQuotaLimits(newer_minor, "k").ok());     // a later minor appends fields
  std::string newer_major = good;
  newer_major[0] = 2;
  EXPECT_EQ(code(newer_major), base::Code::kNotSupported);
  std::string zero_major = good;
  zero_major[0] = 0;
  EXPECT_EQ(code(zero_major), base::Code::kCorruption);
  std::string bits = good;
  bits[2] = static_cast<char>(0x0a);                          // unknown resource bit
  EXPECT_EQ(code(bits), base::Code::kCorruption);
  std::string stray = good;
  stray[3 + 7] = 1;                                           // STORAGE value without its bit
  EXPECT_EQ(code(stray), base::Code::kCorruption);
  std::string huge = good;
  huge[3 + 8] = static_cast<char>(0x80);                      // MESSAGE over 2^63-1
  EXPECT_EQ(code(huge), base::Code::kCorruption);
}

QuotaUsageRecord sampleRecord() {
  QuotaUsageRecord r;
  r.pending = true;
  for (size_t i = 0; i < r.boot.size(); ++i) r.boot[i] = static_cast<uint8_t>(0xa0 + i);
  r.usage = usage(0x1122334455667788, 42, 3);
  r.root = "example.com!user/bob";
  return r;
}

TEST(QuotaFormat, UsageRecordRoundTrip) {
  QuotaUsageRecord r = sampleRecord();
  std::string bytes = encodeQuotaUsageRecord(r);
  ASSERT_EQ(bytes.size(), kQuotaUsageFixedSize + r.root.size());
  EXPECT_EQ(bytes.substr(0, 8), "DARIUSQU");
  EXPECT_EQ(bytes[8], 1);       // major, little-endian
  EXPECT_EQ(bytes[12], 1);      // pending
  EXPECT_EQ(static_cast<uint8_t>(bytes[32]), 0x88);  // storage, little-endian
  EXPECT_EQ(bytes.substr(64), r.root);
  auto back = decodeQuotaUsageRecord(bytes);
  ASSERT_TRUE(back.ok()) << back.status().toString();
  EXPECT_EQ(*back, r);
}

// docs/formats/quota.md, "Versioning": a 1.x reader takes a newer minor's record (found by
// libFuzzer: the fuzz target had demanded that it re-encode byte for byte).
TEST(QuotaFormat, UsageRecordOfANewerMinorDecodes) {
  const QuotaUsageRecord r = sampleRecord();
  std::string bytes = encodeQuotaUsageRecord(r);
  bytes[10] = 0x00;
  bytes[11] = 0x2b;  // minor 0x2b00
  const uint32_t crc = crc32Of(bytes.substr(0, 60) + bytes.substr(kQuotaUsageFixedSize));
  for (int i = 0; i < 4; ++i) bytes[60 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  auto back = decodeQuotaUsageRecord(bytes);
  ASSERT_TRUE(back.ok()) << back.status().toString();
  EXPECT_EQ(*back, r);
  EXPECT_NE(encodeQuotaUsageRecord(*back), bytes);  // rewritten as 1.0
  EXPECT_EQ(encodeQuotaUsageRecord(*back), encodeQuotaUsageRecord(r));
}

TEST(QuotaFormat, UsageRecordRefusesDamage) {
  const std::string good = encodeQuotaUsageRecord(sampleRecord());
  auto code = [](const std::string& b) { return decodeQuotaUsageRecord(b).status().code(); };
  EXPECT_EQ(code(""), base::Code::kCorruption);
  EXPECT_EQ(code(good.substr(0, 63)), base::Code::kCorruption);
  EXPECT_EQ(code(good.substr(0, good.size() - 1)), base::Code::kCorruption);  // torn name
  EXPECT_EQ(code(good + "x"), base::Code::kCorruption);
  EXPECT_EQ(code(std::string(good.size(), '\0')), base::Code::kCorruption);  // never written
  for (size_t i = 0; i < good.size(); ++i) {
    std::string b = good;
    b[i] = static_cast<char>(b[i] ^ 0x10);  // every single flipped bit is caught
    EXPECT_FALSE(decodeQuotaUsageRecord(b).ok()) << "byte " << i;
  }
  std::string newer = good;
  newer[8] = 2;
  EXPECT_EQ(code(newer), base::Code::kNotSupported);
  std::string long_name = good;
  long_name[56] = static_cast<char>(0xff);
  long_name[57] = static_cast<char>(0xff);
  EXPECT_EQ(code(long_name), base::Code::kCorruption);
}

}  // namespace quota_format_test
}  // namespace darius::mailbox
