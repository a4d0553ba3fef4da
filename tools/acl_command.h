// `darius acl get|set|delete`: a mailbox's ACL (RFC 4314) by internal name (user/alice/Sent,
// example.com!user/bob, shared/news — the names `darius mailbox` uses), through
// mailbox::Store::editAcl, so a change takes the namespace lock, is durable, and goes to the
// change log like an IMAP SETACL; it works beside a running dariusd, whose sessions see it
// at their next command.
//
//   get MAILBOX                 the stored entries, one "identifier<TAB>rights" per line
//   set MAILBOX ID RIGHTS       RIGHTS replaces the identifier's rights; "+lr" adds, "-w"
//                               removes (after "--", so the option parser leaves it alone);
//                               "" removes the entry. Then prints the ACL as `get` does.
//   delete MAILBOX ID           removes the identifier's entry; then prints the ACL.
//
// Identifiers and rights follow IMAP's rules (mailbox/acl_identifier.h): a bare user name is
// of the mailbox's domain, "anyone" and "anonymous" are never granted "a", unknown rights
// letters are refused. Rights print in the stored form, without the virtual "c" and "d".
// --json prints {"mailbox": NAME, "acl": [{"identifier": ID, "rights": RIGHTS}, ...]}.
//
// Exit codes: 0 done, 1 the operation failed (no such mailbox, refused grant), 2 usage (a
// malformed name, identifier or rights string).
//
// Thread-safety: single-threaded CLI code.
#pragma once

#include <string>

namespace darius::tools {

struct AclCommand {
  std::string action;  // get, set, delete
  std::string mailbox;
  std::string identifier;
  std::string rights;
  bool json = false;
};

int runAclCommand(const std::string& config_path, const AclCommand& cmd);

}  // namespace darius::tools
