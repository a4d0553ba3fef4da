// IMAP FETCH ENVELOPE, BODYSTRUCTURE and BODY (RFC 3501 §7.4.2, RFC 9051 §7.5.2) rendered from
// a parsed Message, exactly as they go on the wire (and into the mailbox cache).
//
// Conventions: media type, subtype, parameter names, encoding and disposition type are sent in
// upper case (as the RFC's examples and Cyrus do; the RFC compares them case-insensitively);
// values are sent as written. Defaults: "TEXT" "PLAIN" ("CHARSET" "US-ASCII") and "7BIT".
// A multipart with no body part (no boundary, or a boundary that never occurs) is sent with
// one empty text/plain part, because the grammar needs at least one (body-type-mpart =
// 1*body), as Dovecot does. A multipart or message entity left unparsed by a limit is sent as
// "APPLICATION" "OCTET-STREAM" with its other fields, since the grammar forbids
// "MESSAGE" "RFC822" without an envelope and a bare "MULTIPART" misleads clients.
// message/global carries an envelope and structure only for IMAP4rev2 (RFC 9051 body-type-msg);
// IMAP4rev1 knows it only as a basic type (RFC 3501 §9).
//
// Thread-safety: pure functions of an immutable Message.
#pragma once

#include <cstdint>
#include <string>

#include "lib/mime/envelope.h"
#include "lib/mime/message.h"

namespace darius::mime {

struct RenderOptions {
  bool imap4rev2 = false;  // message/global as an encapsulated message
};

// The ENVELOPE list: "(date subject (from) (sender) ...)"; Sender and Reply-To default to From.
std::string renderEnvelope(const Envelope& envelope);
// ENVELOPE of the whole message.
std::string renderEnvelope(const Message& message);

// BODYSTRUCTURE (extensible = true) or BODY (extensible = false) of the whole message, or of
// the entity parts()[index].
std::string renderBodyStructure(const Message& message, bool extensible = true,
                                const RenderOptions& options = {});
std::string renderBodyStructure(const Message& message, uint32_t index, bool extensible,
                                const RenderOptions& options = {});

}  // namespace darius::mime
