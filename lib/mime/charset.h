// Charset conversion to UTF-8 through ICU's converters (ucnv), for RFC 2047 encoded words and
// RFC 2231 parameter values (DESIGN.md §6: ICU is the one charset library of Darius).
//
// A charset ICU does not know gives nullopt, so the caller can keep the original text (an
// unknown charset must not turn a header into garbage). Bytes that are invalid in a known
// charset become U+FFFD. The empty name is refused: ICU would take it as "the platform
// default", which is not what a message means.
//
// Thread-safety: pure functions; each call opens its own converter (ICU shares the tables).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace darius::mime {

// `bytes` in `charset` (an IANA or common alias name, any case) as UTF-8.
std::optional<std::string> convertToUtf8(std::string_view bytes, std::string_view charset);

// Whether ICU has a converter for `charset`.
bool isKnownCharset(std::string_view charset);

}  // namespace darius::mime
