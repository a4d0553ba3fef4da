// The text of a message as SEARCH compares it (RFC 9051 §6.4.4: "[MIME-IMB] content transfer
// encodings and [MIME-HDRS] strings in [RFC5322]/[MIME-IMB] headers MUST be decoded before
// comparing text"): header fields unfolded with their RFC 2047 encoded words decoded, and
// body parts with their Content-Transfer-Encoding undone and their charset converted to
// UTF-8 through ICU, and HTML reduced to the text a reader sees (html_text.h).
//
// Which parts are searched: RFC 9051 §6.4.4 lets a server skip body parts whose terminal media
// type is neither TEXT nor MESSAGE, so BODY and TEXT look at text/* leaves and message/* leaves
// (delivery reports and the like), plus the header of every encapsulated message/rfc822 (it is
// part of the outer message's body). TEXT adds the message's own header and the MIME headers
// of its parts. Attachments in other types (images, archives) are not decoded at all, and parts
// that a parse limit left unparsed are skipped.
//
// Memory: the visit functions decode one part at a time and hand it to the caller, so a
// message costs at most the size of its largest decoded part on top of its mapping.
//
// Ownership: results own their strings; the visitors borrow the Message. Thread-safety: pure
// functions.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/mime/header.h"
#include "lib/mime/message.h"

namespace darius::mailbox {

// One field's raw value as UTF-8: unfolded, RFC 2047 encoded words decoded. Raw 8-bit bytes
// are kept when they are UTF-8 (RFC 6532); otherwise, being undeclared, they are taken as
// Windows-1252 (the Latin-1 superset that unlabelled 8-bit headers are written in).
std::string decodeHeaderValue(std::string_view raw);

// The values of the fields called `name` (case-insensitive) in `header`, decoded as above,
// in order.
std::vector<std::string> decodedFieldValues(const mime::Header& header, std::string_view name);

// The text FROM, TO, CC and BCC compare with (RFC 9051 §6.4.4: "the envelope structure's
// FROM field"): the addresses of one raw field value as ENVELOPE has them (lib/mime's
// parseAddressList), each written "name <mailbox@host>" or "mailbox@host", groups as
// "group: ...;", joined by ", ", names with their RFC 2047 words decoded. Comments and the
// CFWS that RFC 5322 allows inside an addr-spec are not in it, so
// "<user (comment)@ (comment) domain.org>" is found as "user@domain.org" and not as
// "comment": what Dovecot and Cyrus match too. MISSING_MAILBOX / MISSING_DOMAIN
// placeholders are left out (they are not in the message).
std::string decodedAddressText(std::string_view raw);

// The whole header as UTF-8 text, one "Name: value" line per field (values decoded).
std::string decodedHeaderText(const mime::Header& header);

// A body with its Content-Transfer-Encoding undone: base64 and quoted-printable are decoded
// by lib/mime's decoders (transfer_encoding.h, shared with FETCH BINARY), anything else
// (7bit, 8bit, binary, unknown) is returned as it is.
std::string decodeTransferEncoding(std::string_view body, std::string_view encoding);

// The body of a leaf part as UTF-8: transfer-decoded, then converted from its charset
// parameter (us-ascii by default). Text in an unknown charset, or labelled US-ASCII but
// actually 8-bit, is kept as UTF-8 where it is valid and U+FFFD where not.
std::string partTextUtf8(const mime::Message& message, const mime::Part& part);

// The text of a searchable leaf as a reader sees it: partTextUtf8(), and for text/html that
// reduced to its text (html_text.h), so SEARCH BODY "div" does not find every HTML message.
std::string partSearchText(const mime::Message& message, const mime::Part& part);

// Calls `visit` on each text BODY (with_headers false) or TEXT (with_headers true) searches,
// in document order, and stops at the first call that returns true; returns whether one did.
bool visitSearchTexts(const mime::Message& message, bool with_headers,
                      const std::function<bool(std::string_view)>& visit);

// The two kinds of text: what BODY searches (text leaves, and the headers of encapsulated
// messages), and what TEXT adds (the message's own header and the MIME headers of its parts).
// A visit decodes only the kinds it asks for.
enum SearchTextKinds : unsigned { kBodyTexts = 1, kOwnHeaders = 2, kAllSearchTexts = 3 };

// visitTaggedSearchTexts() of the texts of `kinds` only.
bool visitSearchTextsOf(const mime::Message& message, unsigned kinds,
                        const std::function<bool(std::string_view, bool in_body)>& visit);

// Every text TEXT searches, in document order, each with whether BODY searches it too (the
// search index records both in one pass); stops at the first call that returns true.
bool visitTaggedSearchTexts(const mime::Message& message,
                            const std::function<bool(std::string_view, bool in_body)>& visit);

}  // namespace darius::mailbox
