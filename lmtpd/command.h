// LMTP command grammar: RFC 2033 (LMTP is SMTP with LHLO for EHLO) over the command syntax of
// RFC 5321 §4.1, with the MAIL parameters SIZE (RFC 1870), BODY (RFC 6152; BINARYMIME from
// RFC 3030) and SMTPUTF8 (RFC 6531), and BDAT (RFC 3030 CHUNKING). One command line in, one
// typed Command out; no I/O and no session state, so the session executes what this parses
// and the fuzzer can drive it without sockets.
//
//   "MAIL FROM:" ("<>" / Reverse-path) [SP Mail-parameters]
//   "RCPT TO:" ("<Postmaster>" / Forward-path) [SP Rcpt-parameters]
//   Path = "<" [ A-d-l ":" ] Mailbox ">"      ; a source route is parsed and dropped (§4.1.2)
//   "BDAT" SP chunk-size [SP "LAST"]          ; RFC 3030 §2, chunk-size = 1*DIGIT
//
// Internationalised addresses (RFC 6531 §3.3): UTF-8 is accepted in the local part and the
// domain of a path when it is well-formed; the command says so in Command::utf8, and the
// session refuses such a path unless the transaction declared SMTPUTF8.
//
// Three leniencies that real MTAs rely on: spaces after "FROM:"/"TO:" are skipped, keywords
// and parameter names are case-insensitive, and RCPT takes a Local-part without a domain
// ("RCPT TO:<bob>", Command::bare_local), which Cyrus and Dovecot deliver to a user of the
// default domain and delivery agents talking to them send; the session decides whether to
// accept it (lmtp_strict_rcpt). Everything else is strict, including the address syntax and
// the RFC 5321 §4.5.3.1 length limits.
//
// Ownership: values in, values out. Thread-safety: pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace darius::lmtpd {

enum class Verb : uint8_t {
  kLhlo,
  kMail,
  kRcpt,
  kData,
  kRset,
  kNoop,
  kQuit,
  kVrfy,
  kStartTls,
  kBdat,
  // Known only to be refused: RFC 2033 §4.1.
  kHelo,
  kEhlo,
  kUnknown,
};
inline constexpr size_t kVerbCount = static_cast<size_t>(Verb::kUnknown) + 1;

// Upper-case keyword ("MAIL"); "UNKNOWN" for kUnknown (used as a metrics label).
std::string_view verbName(Verb verb);

enum class SyntaxError : uint8_t {
  kNone,
  kUnknownCommand,    // 500 5.5.2
  kBadArguments,      // 501 5.5.4
  kBadAddress,        // 501 5.1.7 (MAIL) or 501 5.1.3 (RCPT)
  kUnknownParameter,  // 555 5.5.4 (RFC 5321 §4.1.1.11)
};

// A mailbox: the local part decoded (quotes and quoted pairs removed) and the domain as
// written (an address literal keeps its brackets). The domain is empty only for RCPT
// TO:<Postmaster> (RFC 5321 §4.1.1.3) and a bare local part (Command::bare_local).
struct Mailbox {
  std::string local;
  std::string domain;
};

enum class BodyType : uint8_t { kUnspecified, k7Bit, k8BitMime, kBinaryMime };

struct Command {
  Verb verb = Verb::kUnknown;
  SyntaxError error = SyntaxError::kNone;
  std::string error_text;  // for the reply when error != kNone; never echoes input

  // LHLO: the client's name. VRFY: the argument. NOOP: the optional argument.
  std::string text;
  // MAIL, RCPT: the path between the angle brackets, as sent (source route dropped); empty
  // for MAIL FROM:<>. Only printable ASCII and well-formed UTF-8 (then `utf8` is set) get
  // this far, so it is safe to echo in replies.
  std::string path;
  bool utf8 = false;
  // MAIL: nullopt for the null reverse-path <>. RCPT: always set.
  std::optional<Mailbox> mailbox;
  // RCPT: the path is a Local-part alone, not <Postmaster>; never holds "@" once decoded.
  bool bare_local = false;
  // MAIL SIZE= (RFC 1870 §6), saturated at UINT64_MAX.
  std::optional<uint64_t> size;
  BodyType body = BodyType::kUnspecified;
  bool smtputf8 = false;  // MAIL ... SMTPUTF8 (RFC 6531 §3.4)
  // BDAT: the chunk's size in octets (saturated at UINT64_MAX) and whether it is the last.
  uint64_t chunk_size = 0;
  bool last = false;
};

// Parses one command line (without its CRLF). Problems are reported in Command::error, with
// the verb still set when the keyword was recognised.
Command parseCommand(std::string_view line);

// Mailbox syntax of RFC 5321 §4.1.2 (Local-part "@" (Domain / address-literal)) with the
// §4.5.3.1 limits (local part 64, domain 255 octets). Exposed for tests and the fuzzer.
std::optional<Mailbox> parseMailbox(std::string_view text);

}  // namespace darius::lmtpd
