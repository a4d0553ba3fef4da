// RFC 2047 encoded words ("=?charset?B|Q?text?="), decoded to UTF-8 for SEARCH, SORT and
// display; the IMAP ENVELOPE itself carries the raw header text (RFC 3501 §7.4.2), so these
// are not used there.
//
// Decoding follows RFC 2047 §6 with the leniency real mail needs: white space between two
// adjacent encoded words is dropped (§6.2); adjacent words in one charset are joined before
// conversion, so a multibyte character split across two words survives; a charset may carry
// an RFC 2231 §5 language suffix ("utf-8*en"); an encoded word glued to other text is still
// decoded. A word whose charset ICU does not know, or whose syntax is broken, stays as
// written. Raw bytes outside encoded words are kept when they are UTF-8, and each byte of an
// invalid sequence becomes U+FFFD, so the result is always valid UTF-8.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace darius::mime {

// Unstructured header text (Subject, Comments, a display name) decoded to UTF-8.
std::string decodeHeaderText(std::string_view text);

// The RFC 2047 "B" and "Q" transforms of one encoded-text (exposed for tests and for RFC 2231
// percent-decoding callers). Invalid input is decoded as far as it makes sense.
std::string decodeBase64Lenient(std::string_view text);
std::string decodeQEncoding(std::string_view text);

// `bytes` with every byte of an invalid UTF-8 sequence replaced by U+FFFD.
std::string sanitizeUtf8(std::string_view bytes);

}  // namespace darius::mime
