// POP3 command grammar (RFC 1939 §3, as amended by RFC 2449 §4 and RFC 5034 §4): one command
// line in, one typed Command out, with no I/O and no session state, so the session can
// execute what this parses and the fuzzer can hammer it without sockets.
//
//   command  = keyword *(SP argument) CRLF     ; keyword: 3-4 letters, case-insensitive
//
// Arguments are separated by spaces; PASS is the exception: its one argument is the rest of
// the line verbatim, because a password may contain spaces (RFC 1939 §7, PASS discussion).
// AUTH's mechanism and initial response, and the continuation lines of an AUTH exchange, are
// returned undecoded except for what parseSaslResponse() does.
//
// Ownership: values in, values out. Thread-safety: pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::pop3d {

// The keywords of RFC 1939, RFC 2449, RFC 2595 and RFC 5034 that Darius serves. The
// TRANSACTION ones parse now (their grammar does not depend on the store) and get handlers
// when the mailbox store lands. APOP (RFC 1939 §7) is not among them: it needs the password
// in the clear on the server, and the greeting carries no timestamp, so clients do not try it.
enum class Verb : uint8_t {
  // AUTHORIZATION state (CAPA, NOOP and QUIT in both states).
  kUser,
  kPass,
  kAuth,
  kStls,
  kCapa,
  kNoop,
  kQuit,
  // TRANSACTION state.
  kStat,
  kList,
  kRetr,
  kDele,
  kRset,
  kTop,
  kUidl,
  kUnknown,
};
inline constexpr size_t kVerbCount = static_cast<size_t>(Verb::kUnknown) + 1;

// Upper-case keyword ("USER"); "UNKNOWN" for kUnknown (used as a metrics label).
std::string_view verbName(Verb verb);

enum class SyntaxError : uint8_t {
  kNone,
  kUnknownCommand,  // the keyword is not one we know
  kBadArguments,    // known keyword, wrong number or shape of arguments
};

struct Command {
  Verb verb = Verb::kUnknown;
  SyntaxError error = SyntaxError::kNone;
  std::string error_text;  // for the -ERR reply when error != kNone; never echoes input

  // USER: the name. PASS: the password (rest of the line, verbatim). AUTH: the mechanism,
  // upper-cased; empty for a bare "AUTH" (which lists the mechanisms).
  std::string text;
  // AUTH: the initial response as sent ("=" is an empty response; still base64 otherwise).
  std::optional<std::string> initial_response;
  // LIST, UIDL (optional), RETR, DELE, TOP (required): the message number, 1-based.
  std::optional<uint32_t> msg;
  // TOP: the number of body lines.
  uint32_t lines = 0;
};

// Parses one command line (without its CRLF). Never fails as a whole: problems are reported
// in Command::error so the session can still count the command against its verb.
Command parseCommand(std::string_view line);

// One client line inside an AUTH exchange (RFC 5034 §4): "*" cancels (nullopt), anything else
// must be strict base64 (kInvalid otherwise). An empty line is an empty response.
base::Result<std::optional<std::string>> parseSaslResponse(std::string_view line);

// The initial-response argument of AUTH (RFC 5034 §4): "=" is a present but empty response,
// anything else strict base64 (kInvalid otherwise).
base::Result<std::string> decodeInitialResponse(std::string_view argument);

}  // namespace darius::pop3d
