// date and date-time (RFC 9051 §9): strict parsing, range checks and INTERNALDATE formatting.
#include "lib/proto/imap_date.h"

#include <gtest/gtest.h>

#include <string>

#include "lib/proto/arg_parser.h"

namespace darius::proto {
namespace {

using base::Code;

TEST(ImapDate, Dates) {
  EXPECT_EQ(*parseDate("1-Feb-1994"), (CivilDate{1994, 2, 1}));
  EXPECT_EQ(*parseDate("01-Feb-1994"), (CivilDate{1994, 2, 1}));
  EXPECT_EQ(*parseDate("\"28-Oct-2006\""), (CivilDate{2006, 10, 28}));
  EXPECT_EQ(*parseDate("31-dec-9999"), (CivilDate{9999, 12, 31}));
  EXPECT_EQ(*parseDate("1-JAN-0000"), (CivilDate{0, 1, 1}));
  EXPECT_EQ(*parseDate("29-Feb-2000"), (CivilDate{2000, 2, 29})) << "400-year leap";
  EXPECT_EQ(*parseDate("29-Feb-2024"), (CivilDate{2024, 2, 29}));
}

TEST(ImapDate, BadDates) {
  for (const char* bad : {"",
                          "\"\"",
                          "1-Feb-94",
                          "1-Feb-19940",
                          "001-Feb-1994",
                          "0-Feb-1994",
                          "32-Jan-1994",
                          "31-Apr-1994",
                          "30-Feb-2000",
                          "29-Feb-1900",
                          "29-Feb-2023",
                          "1-Febr-1994",
                          "1-Fe-1994",
                          "1-Foo-1994",
                          "1 Feb 1994",
                          "1/Feb/1994",
                          "1-Feb-1994 ",
                          " 1-Feb-1994",
                          "\"1-Feb-1994",
                          "1-Feb-1994\"",
                          "-Feb-1994",
                          "1--1994",
                          "1-Feb-",
                          "1-Feb-199x",
                          "+1-Feb-1994",
                          "1-F\xc3\xa9v-1994",
                          "1-Feb-1994\r\n"}) {
    auto d = parseDate(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.status().code(), Code::kInvalid) << bad;
  }
}

TEST(ImapDate, DateTimes) {
  // RFC 9051 §6.3.12's example.
  auto a = parseDateTime("\"17-Jul-1996 02:44:25 -0700\"");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->epoch_seconds, 837596665);  // 1996-07-17T09:44:25Z
  EXPECT_EQ(a->zone_minutes, -420);
  // The space-padded day of date-day-fixed, and the two-digit one.
  auto b = parseDateTime("\" 1-Jan-1970 00:00:00 +0000\"");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->epoch_seconds, 0);
  EXPECT_EQ(*parseDateTime("\"01-Jan-1970 00:00:00 +0000\""), *b);
  // Zones east of Greenwich are subtracted.
  auto c = parseDateTime("\"01-Jan-1970 01:30:00 +0130\"");
  EXPECT_EQ(c->epoch_seconds, 0);
  EXPECT_EQ(c->zone_minutes, 90);
  EXPECT_EQ(parseDateTime("\"31-Dec-1969 23:59:59 +0000\"")->epoch_seconds, -1);
  EXPECT_EQ(parseDateTime("\"01-jAN-2038 00:00:00 +0000\"")->epoch_seconds, 2145916800);
  // Past 2038 and into the far future without time_t trouble.
  EXPECT_EQ(parseDateTime("\"31-Dec-9999 23:59:59 +0000\"")->epoch_seconds, 253402300799);
  EXPECT_EQ(parseDateTime("\"01-Jan-0000 00:00:00 +0000\"")->epoch_seconds, -62167219200);
  // Zone limits: ±23:59, "-0000".
  EXPECT_EQ(parseDateTime("\"01-Jan-2000 00:00:00 +2359\"")->zone_minutes, 1439);
  EXPECT_EQ(parseDateTime("\"01-Jan-2000 00:00:00 -2359\"")->zone_minutes, -1439);
  EXPECT_EQ(parseDateTime("\"01-Jan-2000 00:00:00 -0000\"")->zone_minutes, 0);
  // A leap second is the first second of the next minute.
  EXPECT_EQ(parseDateTime("\"31-Dec-2016 23:59:60 +0000\"")->epoch_seconds,
            parseDateTime("\"01-Jan-2017 00:00:00 +0000\"")->epoch_seconds);
}

TEST(ImapDate, BadDateTimes) {
  for (const char* bad : {
           "17-Jul-1996 02:44:25 -0700",       // no quotes
           "\"17-Jul-1996 02:44:25 -0700",     // one quote
           "\"17-Jul-1996 02:44:25 -0700\" ",  // trailing byte
           "\"7-Jul-1996 02:44:25 -0700\"",    // day must be 2 wide
           "\"07-Jul-1996 2:44:25 -0700\"",    // hour must be 2 digits
           "\"17-Jul-1996  02:44:25 -0700\"",  // two spaces
           "\"17-Jul-1996 02:44:25 0700\"",    // zone without sign
           "\"17-Jul-1996 02:44:25 -070\"",    // zone of 3 digits
           "\"17-Jul-1996 02:44:25 -07000\"",  // zone of 5 digits
           "\"17-Jul-1996 02:44:25 -2400\"",   // zone hours over 23
           "\"17-Jul-1996 02:44:25 +0060\"",   // zone minutes over 59
           "\"17-Jul-1996 02:44:25 UTC\"",     // named zones are RFC 5322's, not IMAP's
           "\"17-Jul-1996 24:00:00 -0700\"",   // hour 24
           "\"17-Jul-1996 02:60:25 -0700\"",   // minute 60
           "\"17-Jul-1996 02:44:61 -0700\"",   // second 61
           "\"00-Jul-1996 02:44:25 -0700\"",   // day 0
           "\"31-Jun-1996 02:44:25 -0700\"",   // June has 30 days
           "\"29-Feb-1997 02:44:25 -0700\"",   // not a leap year
           "\" 0-Jul-1996 02:44:25 -0700\"",   // padded zero day
           "\"  1-Jul-1996 02:44:25 -0700\"",  // wrong width
           "\"17-Jux-1996 02:44:25 -0700\"",   // month
           "\"17-Jul-96 02:44:25 -0700\"",     // two-digit year
           "\"17-Jul-1996T02:44:25 -0700\"",   // ISO separator
           "\"17-Jul-1996 02-44-25 -0700\"",   // separators
           "\"17-Jul-1996 02:44:25 -07:00\"",  // colon in zone
           "\"17-Jul-1996 02:44:25 +-700\"",   // sign twice
           "\"1\xc3\xa9-Jul-1996 02:44:25 -0700\"",
           "",
           "\"\"",
           "\"31-Dec-9999 23:59:60 +0000\"",  // a leap second into year 10000
       }) {
    auto d = parseDateTime(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.status().code(), Code::kInvalid) << bad;
  }
  std::string nul("\"17-Jul-1996 02:44:25 -07\0000\"", 28);
  EXPECT_FALSE(parseDateTime(nul).ok());
}

TEST(ImapDate, FormatsInternalDate) {
  EXPECT_EQ(formatDateTime({837596665, -420}), "\"17-Jul-1996 02:44:25 -0700\"");
  EXPECT_EQ(formatDateTime({0, 0}), "\" 1-Jan-1970 00:00:00 +0000\"");
  EXPECT_EQ(formatDateTime({0, 90}), "\" 1-Jan-1970 01:30:00 +0130\"");
  EXPECT_EQ(formatDateTime({-1, 0}), "\"31-Dec-1969 23:59:59 +0000\"");
  EXPECT_EQ(formatDateTime({-1, -1439}), "\"31-Dec-1969 00:00:59 -2359\"");
  // Out-of-range zones and instants are clamped, never printed with 5 digits.
  EXPECT_EQ(formatDateTime({0, 100000}), "\" 1-Jan-1970 23:59:00 +2359\"");
  EXPECT_EQ(formatDateTime({INT64_MAX, 0}), "\"31-Dec-9999 23:59:59 +0000\"");
  EXPECT_EQ(formatDateTime({INT64_MIN, -1439}), "\" 1-Jan-0000 00:00:00 -2359\"");
  EXPECT_EQ(formatDateTime({INT64_MAX, INT32_MAX}), "\"31-Dec-9999 23:59:59 +2359\"");
}

TEST(ImapDate, FormatParseRoundTrip) {
  // Every formatted date-time parses back to the same instant and zone.
  for (int64_t t : {int64_t{0}, int64_t{951782400}, int64_t{-86400 * 365}, int64_t{4102444799},
                    int64_t{253402300799 - 2 * 86400}, int64_t{1700000000}}) {
    for (int zone : {0, 60, -60, 330, -570, 1439, -1439, 845}) {
      DateTime dt{t, zone};
      auto back = parseDateTime(formatDateTime(dt));
      ASSERT_TRUE(back.ok()) << formatDateTime(dt);
      EXPECT_EQ(*back, dt) << formatDateTime(dt);
    }
  }
}

TEST(ImapDate, CivilDayArithmetic) {
  EXPECT_EQ(daysFromCivil({1970, 1, 1}), 0);
  EXPECT_EQ(daysFromCivil({2000, 3, 1}), 11017);
  EXPECT_EQ(daysFromCivil({1969, 12, 31}), -1);
  for (int64_t d = -800000; d <= 2933000; d += 997) {
    CivilDate c = civilFromDays(d);
    EXPECT_EQ(daysFromCivil(c), d);
    EXPECT_GE(c.day, 1);
    EXPECT_LE(c.day, daysInMonth(c.year, c.month));
  }
  EXPECT_EQ(daysInMonth(1900, 2), 28);
  EXPECT_EQ(daysInMonth(2000, 2), 29);
  EXPECT_EQ(daysInMonth(2000, 13), 0);
  EXPECT_EQ(formatDate({1994, 2, 1}), "1-Feb-1994");
  EXPECT_EQ(formatDate({12, 12, 31}), "31-Dec-0012");
  EXPECT_EQ(*parseDate(formatDate({12, 12, 31})), (CivilDate{12, 12, 31}));
}

TEST(ImapDate, ArgParserElements) {
  ArgParser p("SINCE 1-Feb-1994 BEFORE \"28-Oct-2006\" \"17-Jul-1996 02:44:25 -0700\" {5}");
  ASSERT_TRUE(p.atom().ok());
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.date(), (CivilDate{1994, 2, 1}));
  ASSERT_TRUE(p.space().isOk());
  ASSERT_TRUE(p.atom().ok());
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.date(), (CivilDate{2006, 10, 28}));
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(p.dateTime()->epoch_seconds, 837596665);
  ASSERT_TRUE(p.space().isOk());
  EXPECT_TRUE(p.peek('{'));
  for (const char* bad : {"1-Feb-1994x", "1-Feb-1994\"", "\"1-Feb-1994", "\"1-Feb-1994   \"",
                          "(1-Feb-1994)", "", "1-Feb-1994-", "\"17-Jul-1996 02:44:25 -0700"}) {
    ArgParser b(bad);
    EXPECT_FALSE(b.date().ok()) << bad;
    EXPECT_EQ(b.position(), 0u) << bad;
    EXPECT_FALSE(b.dateTime().ok()) << bad;
    EXPECT_EQ(b.position(), 0u) << bad;
  }
  ArgParser close("1-Feb-1994)");
  EXPECT_TRUE(close.date().ok());
  EXPECT_TRUE(close.peek(')'));
}

}  // namespace
}  // namespace darius::proto
