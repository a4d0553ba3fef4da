// The schedule of dariusd's nightly expire: expire_at parsing (bad values are config errors)
// and the next run time in the local zone, DST days included.
#include "server/expire_scheduler.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace darius::server {
namespace {

// Sets TZ for one test and restores it.
class ZoneTest : public ::testing::Test {
 protected:
  void use(const char* tz) {
    ::setenv("TZ", tz, 1);
    ::tzset();
  }
  void TearDown() override {
    if (old_) {
      ::setenv("TZ", old_->c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
  }
  void SetUp() override {
    if (const char* t = std::getenv("TZ")) old_ = t;
  }
  std::optional<std::string> old_;
};

int64_t utc(int y, int mo, int d, int h, int mi) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  return static_cast<int64_t>(::timegm(&tm));
}

TEST(ExpireAt, ParsesHoursAndMinutesAndRefusesTheRest) {
  EXPECT_EQ(**parseExpireAt("03:00"), 180);
  EXPECT_EQ(**parseExpireAt("23:59"), 23 * 60 + 59);
  EXPECT_EQ(**parseExpireAt("00:00"), 0);
  EXPECT_FALSE(parseExpireAt("").value().has_value());
  for (const char* bad : {"3:00", "24:00", "12:60", "12-00", "noon", "12:00:00", " 1:00"}) {
    EXPECT_FALSE(parseExpireAt(bad).ok()) << bad;
  }
}

TEST_F(ZoneTest, NextRunIsTheComingLocalTimeOfDay) {
  use("UTC0");
  EXPECT_EQ(nextRunAfter(utc(2026, 11, 27, 2, 59), 180), utc(2026, 11, 27, 3, 0));
  // Exactly at the time: the next day's (a run just happened).
  EXPECT_EQ(nextRunAfter(utc(2026, 11, 27, 3, 0), 180), utc(2026, 11, 28, 3, 0));
  EXPECT_EQ(nextRunAfter(utc(2026, 12, 31, 23, 0), 180), utc(2027, 1, 1, 3, 0));
  use("CET-1CEST,M3.5.0,M10.5.0/3");
  // 03:00 in Paris in winter is 02:00 UTC.
  EXPECT_EQ(nextRunAfter(utc(2026, 11, 27, 1, 0), 180), utc(2026, 11, 27, 2, 0));
  // The spring-forward night (2027-03-28, 02:00 -> 03:00 local): 03:00 CEST is 01:00 UTC.
  EXPECT_EQ(nextRunAfter(utc(2027, 3, 27, 12, 0), 180), utc(2027, 3, 28, 1, 0));
}

}  // namespace
}  // namespace darius::server
