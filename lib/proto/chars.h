// The character classes of the IMAP formal syntax (RFC 9051 §9) and the few ASCII string
// helpers every IMAP parser and formatter needs: case-insensitive comparison (RFC 9051 §9
// note 1: keywords are case-insensitive), upper-casing for command and capability names, and
// quoting a value for server output.
//
// Ownership: pure functions on caller-owned text, results by value. Thread-safety: no state.
#pragma once

#include <string>
#include <string_view>

namespace darius::proto {

// ATOM-CHAR: any CHAR (7-bit, not NUL) except atom-specials: "(" ")" "{" SP CTL "%" "*"
// DQUOTE "\" "]".
bool isAtomChar(unsigned char c);
// ASTRING-CHAR = ATOM-CHAR / resp-specials ("]").
bool isAstringChar(unsigned char c);
// tag = 1*<any ASTRING-CHAR except "+">.
bool isTagChar(unsigned char c);
bool isDigit(unsigned char c);

// Upper-cases ASCII letters only (command and capability names are case-insensitive ASCII).
std::string asciiUpper(std::string_view s);
// ASCII case-insensitive equality; bytes >= 0x80 compare exactly.
bool equalsIgnoreCase(std::string_view a, std::string_view b);

// Quotes `s` as an IMAP quoted string if it can be one, else as a synchronising literal
// (server output: RFC 9051 §4.3, servers never send "{n+}"). Strings over 1024 bytes, or with
// NUL, CR, LF or 8-bit bytes, become literals, which every client can read.
std::string quoteString(std::string_view s);

}  // namespace darius::proto
