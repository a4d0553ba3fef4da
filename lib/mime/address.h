// Address lists (RFC 5322 §3.4, §4.4 obsolete syntax) turned into IMAP address structures
// (RFC 3501 §7.4.2, RFC 9051 §7.5.2): personal name, source route, mailbox, host, with group
// start/end markers.
//
// Strings are raw header text: a display name keeps its RFC 2047 encoded words (the client
// decodes them), quoted strings lose their quotes and quoted-pairs. CFWS inside an addr-spec
// is not part of it ("<user (c)@ (c) domain.org>" is user@domain.org). A bare addr-spec takes
// its last comment as its name ("a@b (Ann)"); comments in or beside an angle address name
// nothing; both as Dovecot and Cyrus do.
//
// Broken addresses still produce an address: no "@" or an empty domain gives host
// "MISSING_DOMAIN", an empty local part gives mailbox "MISSING_MAILBOX" (Dovecot's
// placeholders, which clients already know; a NIL host would turn the address into a group
// marker). Empty list elements are skipped (RFC 5322 obs-addr-list), an unterminated group is
// closed at the end, junk after an address up to the next comma is ignored, except an angle
// address: "Mikel@Lindsaar <m@l.net>" is two addresses (an unquoted display name cannot hold
// "@"; Dovecot and Cyrus read Mikel@Lindsaar as an address, and Cyrus goes on with m@l.net).
//
// Thread-safety: pure functions; results own their strings.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace darius::mime {

inline constexpr std::string_view kMissingMailbox = "MISSING_MAILBOX";
inline constexpr std::string_view kMissingDomain = "MISSING_DOMAIN";

struct Address {
  std::optional<std::string> name;     // display name (phrase), raw
  std::optional<std::string> adl;      // source route "@a,@b", or nullopt
  std::optional<std::string> mailbox;  // local part; the group name for a group start
  std::optional<std::string> host;     // domain; nullopt for group markers

  bool isGroupStart() const { return !host && mailbox; }
  bool isGroupEnd() const { return !host && !mailbox; }
};

bool operator==(const Address& a, const Address& b);

// The addresses of one header value (From, To, ...), in order, groups flattened to
// start marker, members, end marker. Empty when the value holds no address.
std::vector<Address> parseAddressList(std::string_view value);

// The same, also counting its work in *steps: each byte the tokenizer reads and each token
// the parser looks at (a token may be looked at a few times, by a look-ahead and then by what
// consumes it). The work is linear in the size of `value` for every input, which
// address_test.cc checks on hostile fields by this count rather than by the clock.
std::vector<Address> parseAddressList(std::string_view value, size_t* steps);

}  // namespace darius::mime
