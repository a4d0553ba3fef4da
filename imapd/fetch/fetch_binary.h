// BINARY content (RFC 3516, RFC 9051 §6.4.5): a part's bytes with its Content-Transfer-Encoding
// removed. base64 and quoted-printable are decoded; 7bit, 8bit, binary (and no header at all)
// are the identity; anything else is unknown, and the FETCH fails with NO [UNKNOWN-CTE].
// Composite parts (multipart/*, message/*) can only have an identity encoding (RFC 2045
// §6.4), so their bytes come back as they are.
//
// The decoders are lib/mime's (transfer_encoding.h), shared with SEARCH. The decoded bytes come
// back exactly as the encoding holds them: a base64 text part that decodes to a bare CR or LF
// keeps it (its BINARY.SIZE counts it once). RFC 3516 §6 asks for CRLF in "textual
// line-oriented sections"; the line breaks of an encoded text are the encoding's own CRLFs
// (quoted-printable's decoder keeps them), while a bare CR or LF inside base64 is content the
// sender encoded on purpose, and rewriting it would make BINARY disagree with the part.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::imapd::fetch {

enum class Cte : uint8_t { kIdentity, kBase64, kQuotedPrintable, kUnknown };

// The encoding named by the Content-Transfer-Encoding field of `header_block` (a part's MIME
// header, or a message's header for its body); identity when the field is absent or empty.
Cte cteOf(std::string_view header_block);
// The decoded content of a leaf part from its header block and encoded body; kNotSupported
// for an unknown encoding.
base::Result<std::string> decodeLeaf(std::string_view header_block, std::string_view body);

// RFC 3516 §4.3: data with a NUL octet must go as a literal8 ("~{n}").
bool needsLiteral8(std::string_view data);

}  // namespace darius::imapd::fetch
