// Modified UTF-7 mailbox names (RFC 3501 §5.1.3, kept by RFC 9051 Appendix A.1 for clients
// that have not enabled UTF8=ACCEPT or IMAP4rev2), both ways, through ICU's converter
// "IMAP-mailbox-name" (DESIGN.md §6).
//
// Printable ASCII other than "&" stands for itself, "&" is "&-", everything else is UTF-16
// in base64 with "," for "/", between "&" and "-". Decoding accepts only the one canonical
// form of each name, as RFC 3501 §5.1.3 asks servers to verify for CREATE, so that two
// spellings can never name two different mailboxes or hide one name behind another:
//   - no printable ASCII inside base64 ("&AGE-" for "a"), no null shift ("-&" inside a run,
//     so "&AGE-&AGE-" is refused: adjacent runs must be one), no empty run except "&-";
//   - every run terminated by "-" (a name MUST end in US-ASCII), base64 that is valid, whose
//     padding bits are zero and whose length is a whole number of UTF-16 units;
//   - UTF-16 that is well formed: no lone or reversed surrogates (ICU passes those through,
//     so this file checks them);
//   - no raw bytes outside 0x20..0x7e (8-bit bytes and controls must be encoded).
// ICU's default callbacks replace bad input with U+FFFD; here the stop callback makes any
// bad input an error, and a final re-encode-and-compare refuses whatever non-canonical form
// ICU would still accept. Errors are kInvalid.
//
// Encoding takes well-formed UTF-8 (lib/base/utf8.h's rules: no overlongs, no surrogates,
// nothing above U+10FFFF) and returns the canonical mUTF-7 form; anything else is kInvalid.
// decodeMutf7(encodeMutf7(x)) == x for every valid x, and encodeMutf7(decodeMutf7(y)) == y
// for every y that decodes.
//
// Ownership: pure functions; each call opens its own ICU converter (ICU caches the shared
// converter data), so there is no shared mutable state. Thread-safety: safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::proto {

// mUTF-7 → UTF-8.
base::Result<std::string> decodeMutf7(std::string_view mutf7);
// UTF-8 → mUTF-7.
base::Result<std::string> encodeMutf7(std::string_view utf8);

}  // namespace darius::proto
