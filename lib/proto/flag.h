// Message flags as the IMAP grammar spells them (RFC 9051 §2.3.2, §9):
//
//   flag           = "\Answered" / "\Flagged" / "\Deleted" / "\Seen" / "\Draft" /
//                    flag-keyword / flag-extension        ; not "\Recent"
//   flag-keyword   = "$MDNSent" / "$Forwarded" / "$Junk" / "$NotJunk" / "$Phishing" / atom
//   flag-extension = "\" atom
//   flag-list      = "(" [flag *(SP flag)] ")"
//   flag-perm      = flag / "\*"                          ; PERMANENTFLAGS only
//
// System flags are matched case-insensitively and returned in their canonical spelling, so
// "\SEEN" from a client is stored and echoed as "\Seen"; keywords keep the client's case
// (RFC 9051 §2.3.2: keywords compare case-insensitively, the mailbox layer does that).
// A flag-extension that is not a system flag ("\Foo", and "\Recent", obsolete since
// RFC 9051) is refused unless FlagOptions::allow_extension: a server MUST NOT create flags
// that a future standard may define, and cannot store them meaningfully. "\*" is accepted
// only where FlagOptions::allow_wildcard says (it is only meaningful in PERMANENTFLAGS).
//
// Ownership: value types. Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::proto {

enum class SystemFlag : uint8_t { kAnswered, kFlagged, kDeleted, kSeen, kDraft };

struct Flag {
  enum class Kind : uint8_t {
    kSystem,     // one of SystemFlag; name is its canonical spelling
    kKeyword,    // an atom; name as the client wrote it
    kExtension,  // "\" atom other than a system flag (only with allow_extension)
    kWildcard,   // "\*" (only with allow_wildcard)
  };
  Kind kind = Kind::kKeyword;
  SystemFlag system = SystemFlag::kSeen;  // meaningful for kSystem only
  std::string name;                       // wire form: "\Seen", "$Junk", "\*"

  friend bool operator==(const Flag&, const Flag&) = default;
};

struct FlagOptions {
  bool allow_wildcard = false;   // "\*" (flag-perm)
  bool allow_extension = false;  // "\Foo"
  size_t max_flags = 1000;       // per list; kTooBig past it
};

// Parses one complete flag token.
base::Result<Flag> parseFlag(std::string_view token, const FlagOptions& options = {});
// "\Seen" for SystemFlag::kSeen.
std::string_view systemFlagName(SystemFlag f);
// A Flag for a system flag, as servers build them for FLAGS and PERMANENTFLAGS responses.
Flag systemFlag(SystemFlag f);

}  // namespace darius::proto
