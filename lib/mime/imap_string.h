// IMAP string output (RFC 3501 §4.3, §9 "string", "nstring"; RFC 9051 §4.3): a value goes
// out as a quoted string when it can, as a literal otherwise, and absent values as NIL.
//
// Quoted needs 7-bit text without CR, LF or NUL ('"' and '\' are escaped); anything else (8-bit
// header bytes, stray line ends) becomes a literal "{n}\r\n<bytes>", which IMAP4rev1 and
// IMAP4rev2 clients both read. NUL cannot appear in either (CHAR8 is %x01-ff), so each NUL is
// replaced by U+FFFD, as Dovecot does.
//
// Thread-safety: pure functions appending to a caller-owned string.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace darius::mime {

void appendImapString(std::string& out, std::string_view value);
void appendImapNString(std::string& out, const std::optional<std::string>& value);

}  // namespace darius::mime
