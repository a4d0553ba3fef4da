// Content-Transfer-Encoding decoders for message bodies (RFC 2045 §6.7, §6.8), lenient as
// real mail needs: base64 skips characters outside its alphabet and restarts after padding
// (so concatenated encodings decode); quoted-printable keeps a stray "=", drops the white
// space transports add at line ends (§6.7 rules 3 and 5) and gives CRLF line ends.
// FETCH BINARY and SEARCH BODY/TEXT both decode through these, so they agree on the bytes.
// (RFC 2047 encoded-words have their own rules: rfc2047.h.)
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace darius::mime {

std::string decodeBase64Body(std::string_view in);
std::string decodeQuotedPrintable(std::string_view in);

}  // namespace darius::mime
