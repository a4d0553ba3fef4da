// The sent date and time of a message as SORT DATE orders it and THREAD orders siblings
// (RFC 5256 §2.2): the Date header's instant in UTC ("the timezone of the sent date/time
// converted to UTC"), or, when the header is missing or cannot be parsed, the internal date.
//
//   date-time = [ day-of-week "," ] date time [CFWS]      ; RFC 5322 §3.3
//   time      = hour ":" minute [ ":" second ] FWS zone
//
// The day, month and year come from mailbox::parseSentDate (which SEARCH SENT* uses, lenient
// the same way: comments, two-digit years, the asctime() form). The time is the first
// "h:mm[:ss]" word (none: midnight); the zone the word after it: "+hhmm" / "-hhmm", or the
// obsolete names of RFC 5322 §4.3 (UT, GMT, Z, EST, EDT, CST, CDT, MST, MDT, PST, PDT). A
// missing zone, "-0000" (§3.3: no information) and military letters (§4.3: "SHOULD all be
// considered equivalent to -0000") are UTC. A time out of range (25:00, 10:61) counts as
// 00:00:00 UTC of the day written (RFC 5256 §2.2: "If the time is also invalid, the time
// SHOULD be treated as 00:00:00"); only a date without a valid day, month and year falls back
// to the internal date.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace darius::imapd::sort {

// Seconds since the epoch (UTC) of a Date field's unfolded value, or nullopt.
std::optional<int64_t> parseSentTime(std::string_view date_value);

// parseSentTime of `date_value` if present and parsable, else `internal_date`.
int64_t sentTimeOr(const std::optional<std::string_view>& date_value, int64_t internal_date);

}  // namespace darius::imapd::sort
