// The IMAP ENVELOPE of a message (RFC 3501 §7.4.2, RFC 9051 §7.5.2), built from its header.
//
// Values are raw header text, unfolded as unfoldValue() does (RFC 2047 words are not
// decoded: the client does that). Absent Date, Subject, In-Reply-To, Message-ID give NIL;
// present but empty give "". Absent or empty address fields give NIL, and Sender and
// Reply-To then default to From, at rendering time (render.h) so that the structure says what
// the message says.
//
// Duplicate fields, which RFC 5322 §3.6 forbids but real mail has: the string fields take the
// last occurrence and the address fields concatenate all occurrences, as Dovecot does (the
// RFCs leave this open).
//
// Thread-safety: pure functions; an Envelope owns its strings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/mime/address.h"
#include "lib/mime/header.h"

namespace darius::mime {

struct Envelope {
  std::optional<std::string> date;
  std::optional<std::string> subject;
  std::vector<Address> from;
  std::vector<Address> sender;
  std::vector<Address> reply_to;
  std::vector<Address> to;
  std::vector<Address> cc;
  std::vector<Address> bcc;
  std::optional<std::string> in_reply_to;
  std::optional<std::string> message_id;
};

Envelope buildEnvelope(const Header& header);

}  // namespace darius::mime
