// `darius quota get|set|list|recalc`: RFC 9208 quota roots by internal name (user/alice,
// example.com!user/bob, user/alice/Archive, shared/news — the names `darius mailbox` uses),
// through mailbox::Store's quota calls, which take the same locks as dariusd's sessions and
// deliveries (docs/formats/quota.md), so all of it works while dariusd runs.
//
//   get ROOT                      one line per resource: NAME<TAB>usage<TAB>limit|none
//                                 (STORAGE in KiB, usage rounded up, as IMAP shows it)
//   set ROOT [RES=n|none]...      changes the named limits (STORAGE in KiB), keeps the others;
//                                 makes ROOT a root if it was not one. Then prints as `get`.
//   list [--prefix P]             every root whose name starts with P: ROOT<TAB>RES usage/limit...
//   recalc [-n] [--user U|--all]  Cyrus's `quota -f`: recounts each root from the mailboxes,
//                                 prints "<root>: <resource> <stored> -> <actual>" for every
//                                 difference (STORAGE in bytes) and fixes it unless -n.
// --json prints the same as one JSON object.
//
// Exit codes: 0 done (recalc: nothing was wrong), 1 the operation failed (recalc: something
// was wrong, and was fixed unless -n), 2 usage (a malformed name, resource or limit: a limit
// is a decimal number64, at most 2^63-1).
//
// Thread-safety: single-threaded CLI code.
#pragma once

#include <string>
#include <vector>

namespace darius::tools {

struct QuotaCommand {
  std::string action;  // get, set, list, recalc
  std::string root;
  std::vector<std::string> limits;  // set: RES=n or RES=none
  std::string prefix;               // list
  std::string user;                 // recalc --user
  bool all = false;                 // recalc --all
  bool dry_run = false;             // recalc -n
  bool json = false;
};

int runQuotaCommand(const std::string& config_path, const QuotaCommand& cmd);

}  // namespace darius::tools
