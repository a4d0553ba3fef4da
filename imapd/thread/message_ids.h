// Message ids for THREAD (RFC 5256 §3): the msg-ids of Message-ID, References and In-Reply-To
// (RFC 5322 §3.6.4), normalised so that quoting differences do not split threads.
//
//   msg-id = [CFWS] "<" id-left "@" id-right ">" [CFWS]      ; plus the obsolete forms of §4.5.4
//
// Normalising: comments and white space inside the brackets (obsolete forms) are dropped, a
// quoted-string's quotes and backslashes are removed, so <"01KF8JCEOCBS0045PS"@xxx.yyy.com>
// and <01KF8JCEOCBS0045PS@xxx.yyy.com> are the same id (RFC 5256 §3's example). The result
// keeps its angle brackets. Case is kept: message id comparisons are case-sensitive (§3).
// Valid means: "<", a non-empty part, "@", a non-empty part, ">", nothing but printable ASCII
// or 8-bit bytes in between. Outside the brackets, comments and quoted strings are skipped, so
// the phrase of a broken In-Reply-To ("Your message of \"<x@y>\"") does not count.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace darius::imapd::thread {

// References beyond this many are dropped from the front: the last ones name the nearest
// ancestors, and a bound keeps a hostile header from costing quadratic time.
inline constexpr size_t kMaxReferences = 1000;

// The valid msg-ids of a field value (folding allowed), normalised, in order; at most `max`,
// the last ones.
std::vector<std::string> parseMessageIds(std::string_view value, size_t max = kMaxReferences);
// The first valid msg-id, or the empty string.
std::string firstMessageId(std::string_view value);

// The references of RFC 5256 §3: the ids of References when it has any valid one, else the
// first valid id of In-Reply-To, else none. nullopt: the field is absent.
std::vector<std::string> threadReferences(std::optional<std::string_view> references,
                                          std::optional<std::string_view> in_reply_to);

}  // namespace darius::imapd::thread
