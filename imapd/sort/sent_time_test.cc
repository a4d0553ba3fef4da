// RFC 5256 §2.2 sent dates: the Date header's instant in UTC, the internal date otherwise.
#include "imapd/sort/sent_time.h"

#include <gtest/gtest.h>

namespace darius::imapd::sort {
namespace {

// 2024-01-04T10:00:00Z
constexpr int64_t kJan4Ten = 1704362400;

TEST(SentTime, ZonesAreConvertedToUtc) {
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 10:00:00 +0000"), kJan4Ten);
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 11:30:00 +0130"), kJan4Ten);
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 03:00:00 -0700"), kJan4Ten);
  EXPECT_EQ(parseSentTime("Wed, 03 Jan 2024 23:00:00 -1100"), kJan4Ten);
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 05:00:00 EST"), kJan4Ten);
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 02:00:00 pst"), kJan4Ten);
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 10:00:00 GMT"), kJan4Ten);
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 10:00:00 -0000"), kJan4Ten);
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 10:00:00 Q"), kJan4Ten);
}

TEST(SentTime, LenientForms) {
  EXPECT_EQ(parseSentTime("4 Jan 2024 10:00 +0000"), kJan4Ten);
  EXPECT_EQ(parseSentTime("Thu,4 Jan 24 10:00:00 +0000 (UTC)"), kJan4Ten);
  EXPECT_EQ(parseSentTime("Thu (day) 04 (x) Jan 2024 10:00:00 (y) +0000"), kJan4Ten);
  EXPECT_EQ(parseSentTime("Thu Jan  4 10:00:00 2024"), kJan4Ten);  // asctime(): no zone, UTC
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024"), kJan4Ten - 36000);  // no time: midnight
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 10:00:60 +0000"), kJan4Ten + 60);
}

TEST(SentTime, BrokenDatesAreNotParsed) {
  EXPECT_EQ(parseSentTime(""), std::nullopt);
  EXPECT_EQ(parseSentTime("yesterday"), std::nullopt);
  EXPECT_EQ(parseSentTime("Thu, 32 Jan 2024 10:00:00 +0000"), std::nullopt);
}

// RFC 5256 §2.2: a valid day with an invalid time is that day at 00:00:00 UTC, whatever zone
// follows; an unknown zone is UTC.
TEST(SentTime, AnInvalidTimeIsMidnightUtc) {
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 25:00:00 +0000"), kJan4Ten - 36000);
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 10:61:00 -0500"), kJan4Ten - 36000);
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 10:00:00 +7777"), kJan4Ten);
  EXPECT_EQ(parseSentTime("Thu, 04 Jan 2024 10:00:00 XYZ"), kJan4Ten);
}

TEST(SentTime, InternalDateIsTheFallback) {
  EXPECT_EQ(sentTimeOr(std::nullopt, 42), 42);
  EXPECT_EQ(sentTimeOr(std::string_view("garbage"), 42), 42);
  EXPECT_EQ(sentTimeOr(std::string_view("Thu, 04 Jan 2024 10:00:00 +0000"), 42), kJan4Ten);
}

}  // namespace
}  // namespace darius::imapd::sort
