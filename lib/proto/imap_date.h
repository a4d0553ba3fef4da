// IMAP dates (RFC 9051 §9): the `date` of SEARCH BEFORE/ON/SINCE and the `date-time` of
// APPEND and INTERNALDATE, parsed strictly and formatted the way servers send them.
//
//   date           = date-text / DQUOTE date-text DQUOTE
//   date-text      = date-day "-" date-month "-" date-year     ; "1-Feb-1994"
//   date-time      = DQUOTE date-day-fixed "-" date-month "-" date-year SP time SP zone DQUOTE
//   date-day-fixed = (SP DIGIT) / 2DIGIT                        ; " 1" or "01"
//   time           = 2DIGIT ":" 2DIGIT ":" 2DIGIT
//   zone           = ("+" / "-") 4DIGIT                         ; hhmm east of Greenwich
//
// Month names are case-insensitive (RFC 9051 §9, note 1). Beyond the grammar, values are
// checked: the day must exist in that month of that year (proleptic Gregorian, so 29-Feb
// only in leap years), hours 0..23, minutes 0..59, seconds 0..60 (RFC 5322 §3.3 allows a
// leap second; it counts as the first second of the next minute), and zones up to ±23:59
// with minutes 0..59. Years are the 4DIGIT of the grammar, 0000..9999. All errors are
// kInvalid. Arithmetic is done on days from the civil calendar, never through time_t or the
// process's time zone (no tzset, no locale), so results do not depend on the host.
//
// Ownership: value types and pure functions. Thread-safety: no state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::proto {

// A calendar day, as in a SEARCH date. month 1..12, day 1..31.
struct CivilDate {
  int year = 1970;
  int month = 1;
  int day = 1;
  friend bool operator==(const CivilDate&, const CivilDate&) = default;
};

// An instant with the zone it was written in: INTERNALDATE keeps the client's zone so that
// FETCH returns the date-time APPEND was given (RFC 9051 §6.3.12).
struct DateTime {
  int64_t epoch_seconds = 0;  // UTC seconds since 1970-01-01T00:00:00Z
  int zone_minutes = 0;       // offset east of UTC: "+0130" is 90, "-0700" is -420
  friend bool operator==(const DateTime&, const DateTime&) = default;
};

// date-text, or date-text in double quotes (the whole text must be the date).
base::Result<CivilDate> parseDate(std::string_view text);
// date-time, double quotes included: "\"17-Jul-1996 02:44:25 -0700\"".
base::Result<DateTime> parseDateTime(std::string_view text);

// date-time with its double quotes, for INTERNALDATE: the day space-padded (date-day-fixed's
// first form, as Cyrus writes it), the zone as given. A zone outside ±23:59 is clamped to it;
// an instant whose local year falls outside 0000..9999 is clamped to the nearest end, since
// date-year has four digits.
std::string formatDateTime(const DateTime& dt);
// date-text: "1-Feb-1994".
std::string formatDate(const CivilDate& date);

// Days since 1970-01-01 of a civil date (negative before), and back. Valid for any year
// representable in int; the date is not validated.
int64_t daysFromCivil(const CivilDate& date);
CivilDate civilFromDays(int64_t days);
// The number of days in `month` (1..12) of `year`; 0 for a month out of range.
int daysInMonth(int year, int month);

}  // namespace darius::proto
