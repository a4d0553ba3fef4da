// `darius mailbox list|show|create|delete|rename|append`: administration of the store's
// mailboxes by internal name (user/alice/Sent, example.com!user/bob, shared/news), through
// mailbox::Store, so every change takes the same locks and intents as dariusd's and can run
// beside it. `append` stores message files as delivery does (staged, fsync'd, linked, one
// index commit), which is what operators restoring mail and the reconstruct tests need.
//
// Output, one line per item, fields separated by TABs:
//   list    name, partition, unique id, messages, UIDVALIDITY ("-" for \Noselect or deleted)
//   show    "# <name> uniqueid <id> uidvalidity <v> uidnext <n> highestmodseq <m> messages <k>",
//           then per live message: UID, flags (space-separated), size, GUID, internal date;
//           with --expunged then "# expunged <k>" and per expunged message still held the
//           same fields and "expunged <time>", "modseq <m>" (docs/design/expunge.md)
//   append  "<name>: appended UID <n>" per file
//
// Thread-safety: single-threaded CLI code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace darius::tools {

struct MailboxCommand {
  std::string action;       // list, show, create, delete, rename, append
  std::string name;         // the mailbox (rename: the old name)
  std::string to;           // rename: the new name
  std::string prefix;       // list: a mailbox and its subtree, or "<domain>!" for a domain
  std::string partition;    // create
  std::string acl;          // create: "id rights id rights ..."; default: the owner, all rights
  std::string special_use;  // create: e.g. "\Sent"
  std::vector<std::string> files;  // append: message files ("-" = standard input)
  std::vector<std::string> flags;  // append: \Seen, \Flagged, ..., or keywords
  int64_t date = 0;                // append: internal date (seconds since the epoch); 0 = now
  bool expunged = false;           // show: also the expunged messages still held
};

int runMailboxCommand(const std::string& config_path, const MailboxCommand& cmd);

}  // namespace darius::tools
