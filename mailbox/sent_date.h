// The calendar day of an RFC 5322 Date header, for SENTBEFORE, SENTON and SENTSINCE
// (RFC 9051 §6.4.4: the Date header "disregarding time and timezone", so the day as written in
// the sender's zone, which is what the user sees).
//
//   date-time = [ day-of-week "," ] day month year time zone     ; RFC 5322 §3.3
//
// Real mail is lenient about it, and so is this: comments and extra white space anywhere,
// a missing comma, the obsolete two- and three-digit years (RFC 5322 §4.3: 00–49 is 20xx,
// 50–999 is 1900 + year), month names in any case, the asctime() form "Thu Jan  4 10:00:00
// 2024" some broken mailers write, and junk after the year. Whatever has no recognisable
// day, month and year is nullopt; the caller then falls back to the internal date, as
// RFC 5256 §2.2 has SORT do for a missing or unparsable Date.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "lib/proto/imap_date.h"

namespace darius::mailbox {

std::optional<proto::CivilDate> parseSentDate(std::string_view value);

// The words of a Date value as both parsers read it: comments (nested, with quoted pairs)
// dropped, split at white space and ",", and at "-" when `split_at_dash` (the day parser's
// "4-Jan-2024"; the time parser keeps "-0500" whole). At most 16 words: the rest is junk.
std::vector<std::string_view> dateWords(std::string_view value, bool split_at_dash);

}  // namespace darius::mailbox
