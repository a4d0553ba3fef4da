// ACL identifiers (RFC 4314 §2, §3) as SETACL, DELETEACL, LISTRIGHTS and `darius acl` receive
// them, turned into the one spelling the stored ACL keeps (docs/design/acl.md):
//
//   anyone, anonymous    the reserved identifiers, any case on input, stored lower-case.
//                        "anyone" is every login; "anonymous" is unauthenticated access,
//                        which no service offers today, so it matches nobody (it is kept
//                        because Cyrus ACLs carry it).
//   user ids             as the namespace splits a login (mailbox/namespace.h): the domain
//                        lower-cased, the default domain dropped. With virtual domains an id
//                        without '@' names a user of the mailbox's own domain, so on a
//                        mailbox of example.com "bob" is stored "bob@example.com" (Cyrus
//                        stores the full id too) and on a default-domain mailbox "bob".
//   -<identifier>        negative rights for the identifier after the dash.
//
// Refused: an empty identifier or a lone "-" (kInvalid: RFC 4314 §3 answers BAD), anything
// the namespace refuses as a user name (control characters, TAB included, which separates
// the stored fields; more than one '@'; a bad domain) — kInvalid too — and a user of another
// domain than the mailbox's (kPermission: they can never reach it; the command answers NO).
// Whether the user exists is not asked here (mailbox/ does not know the user store): the
// callers that grant rights ask it (grantsToUser below).
//
// Identifiers are compared as bytes after this; no SASLprep (the names of mailboxes are not
// normalised either, docs/design/naming.md).
//
// Ownership: values. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "lib/base/result.h"
#include "mailbox/acl.h"
#include "mailbox/namespace.h"

namespace darius::mailbox {

inline constexpr std::string_view kAnyone = "anyone";
inline constexpr std::string_view kAnonymous = "anonymous";
// Longer identifiers are refused before any other work (a user id is bounded by the mailbox
// name limit anyway).
inline constexpr size_t kMaxIdentifierLength = 512;

struct AclIdentifier {
  enum class Kind : uint8_t { kUser, kAnyone, kAnonymous };
  Kind kind = Kind::kUser;
  bool negative = false;
  UserName user;          // kUser only
  std::string canonical;  // the stored spelling, "-" included for negative rights

  // Without the "-": the identity the entry is about.
  std::string_view subject() const {
    return std::string_view(canonical).substr(negative ? 1 : 0);
  }
};

// `wire` as a client sent it, for an ACL of a mailbox in `mailbox_domain` ("" the default).
base::Result<AclIdentifier> canonicalIdentifier(std::string_view wire, const Namespace& ns,
                                                std::string_view mailbox_domain);

// The server's restriction on grants (RFC 4314 §2 lets a server force rights never to be
// granted to some identifiers, and §6 warns about "a" for anyone): `anyone` and `anonymous`
// never get "a", since an admin right for everyone is almost always a mistake and would let
// any user rewrite the ACL. kPermission with the reason when `change` would grant it.
base::Status checkGrant(const AclIdentifier& id, const RightsChange& change);

// Whether `change` writes rights (positive or negative) for a user id, as opposed to taking
// them away: SETACL and `darius acl set` then ask the user store whether the user exists
// (docs/design/acl.md), so a misspelt name is refused instead of silently granting nothing.
bool grantsToUser(const AclIdentifier& id, const RightsChange& change);

}  // namespace darius::mailbox
