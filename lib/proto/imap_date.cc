#include "lib/proto/imap_date.h"

#include <algorithm>
#include <cstdio>

#include "lib/proto/chars.h"

namespace darius::proto {

using base::Result;
using base::Status;

namespace {

constexpr std::string_view kMonths[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr int kMaxZoneMinutes = 23 * 60 + 59;

// Exactly `n` digits at s[pos..]; -1 if not.
int digits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return -1;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (!isDigit(c)) return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

int monthFromName(std::string_view name) {
  for (int i = 0; i < 12; ++i) {
    if (equalsIgnoreCase(name, kMonths[i])) return i + 1;
  }
  return 0;
}

Status invalidDate() { return Status::invalid("Invalid date"); }
Status invalidDateTime() { return Status::invalid("Invalid date-time"); }

// "-" date-month "-" date-year at s[pos..]; fills month and year; the position after it.
Result<size_t> monthAndYear(std::string_view s, size_t pos, CivilDate& d) {
  if (pos + 9 > s.size() || s[pos] != '-' || s[pos + 4] != '-') return invalidDate();
  d.month = monthFromName(s.substr(pos + 1, 3));
  d.year = digits(s, pos + 5, 4);
  if (d.month == 0 || d.year < 0) return invalidDate();
  return pos + 9;
}

}  // namespace

int daysInMonth(int year, int month) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return 0;
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// Howard Hinnant's days_from_civil / civil_from_days: exact for the proleptic Gregorian
// calendar, eras of 400 years, no tables and no time_t.
int64_t daysFromCivil(const CivilDate& date) {
  int64_t y = date.year - (date.month <= 2 ? 1 : 0);
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t mp = (date.month + 9) % 12;  // March is 0
  int64_t doy = (153 * mp + 2) / 5 + date.day - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

CivilDate civilFromDays(int64_t days) {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  int64_t doe = days - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  CivilDate d;
  d.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  d.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  d.year = static_cast<int>(yoe + era * 400 + (d.month <= 2 ? 1 : 0));
  return d;
}

Result<CivilDate> parseDate(std::string_view text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    text = text.substr(1, text.size() - 2);
  }
  // date-day = 1*2DIGIT
  size_t day_len = 0;
  while (day_len < text.size() && day_len < 3 && isDigit(static_cast<unsigned char>(text[day_len])))
    ++day_len;
  if (day_len == 0 || day_len > 2) return invalidDate();
  CivilDate d;
  d.day = digits(text, 0, day_len);
  auto end = monthAndYear(text, day_len, d);
  if (!end.ok()) return end.status();
  if (*end != text.size()) return invalidDate();
  if (d.day < 1 || d.day > daysInMonth(d.year, d.month)) return invalidDate();
  return d;
}

Result<DateTime> parseDateTime(std::string_view text) {
  // "dd-Mmm-yyyy hh:mm:ss +zzzz" in quotes: always 28 bytes.
  if (text.size() != 28 || text.front() != '"' || text.back() != '"') return invalidDateTime();
  std::string_view s = text.substr(1, 26);
  CivilDate d;
  // date-day-fixed = (SP DIGIT) / 2DIGIT
  d.day = s[0] == ' ' ? digits(s, 1, 1) : digits(s, 0, 2);
  if (d.day < 0) return invalidDateTime();
  auto after_year = monthAndYear(s, 2, d);
  if (!after_year.ok()) return invalidDateTime();
  if (d.day < 1 || d.day > daysInMonth(d.year, d.month)) return invalidDateTime();
  // SP time SP zone at 11.
  if (s[11] != ' ' || s[14] != ':' || s[17] != ':' || s[20] != ' ') return invalidDateTime();
  int hour = digits(s, 12, 2), minute = digits(s, 15, 2), second = digits(s, 18, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
    return invalidDateTime();
  }
  if (s[21] != '+' && s[21] != '-') return invalidDateTime();
  int zh = digits(s, 22, 2), zm = digits(s, 24, 2);
  if (zh < 0 || zh > 23 || zm < 0 || zm > 59) return invalidDateTime();
  int zone = (zh * 60 + zm) * (s[21] == '-' ? -1 : 1);
  // "Subtracting the timezone from the given time will give the UT form" (RFC 9051 §9).
  int64_t local = daysFromCivil(d) * 86400 + hour * 3600 + minute * 60 + second;
  // Only a leap second on 31-Dec-9999 gets here: year 10000 has no date-year, so it could
  // never be written back.
  if (local > daysFromCivil({9999, 12, 31}) * 86400 + 86399) return invalidDateTime();
  return DateTime{local - int64_t{zone} * 60, zone};
}

std::string formatDateTime(const DateTime& dt) {
  int zone = std::clamp(dt.zone_minutes, -kMaxZoneMinutes, kMaxZoneMinutes);
  // 0000-01-01T00:00:00 and 9999-12-31T23:59:59 local time, as epoch seconds.
  const int64_t lowest = daysFromCivil({0, 1, 1}) * 86400;
  const int64_t highest = daysFromCivil({9999, 12, 31}) * 86400 + 86399;
  int64_t local = dt.epoch_seconds;
  // Clamp before adding the zone so that extreme values cannot overflow.
  local = std::clamp<int64_t>(local, lowest - 86400, highest + 86400) + int64_t{zone} * 60;
  local = std::clamp(local, lowest, highest);
  int64_t days = local >= 0 ? local / 86400 : (local - 86399) / 86400;
  int64_t secs = local - days * 86400;
  CivilDate d = civilFromDays(days);
  char buf[40];
  int az = zone < 0 ? -zone : zone;
  std::snprintf(buf, sizeof buf, "\"%2d-%s-%04d %02d:%02d:%02d %c%02d%02d\"", d.day,
                std::string(kMonths[d.month - 1]).c_str(), d.year, static_cast<int>(secs / 3600),
                static_cast<int>(secs / 60 % 60), static_cast<int>(secs % 60), zone < 0 ? '-' : '+',
                az / 60, az % 60);
  return buf;
}

std::string formatDate(const CivilDate& date) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d-%s-%04d", date.day,
                std::string(kMonths[std::clamp(date.month, 1, 12) - 1]).c_str(),
                std::clamp(date.year, 0, 9999));
  return buf;
}

}  // namespace darius::proto
