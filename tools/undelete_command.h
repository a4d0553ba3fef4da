// `darius undelete`: what DELETE kept (phase one of two-phase delete, docs/design/expunge.md),
// listed and brought back by an administrator. Goes through mailbox::Store, which takes the
// same locks as dariusd's sessions, so it runs while dariusd does.
//
//   undelete --list [--user U] [--json]
//       every folder in the deleted areas (one user's, with --user), oldest first:
//       "<entry>  <internal name>-<YYYYMMDD-HH:MM:SS>  UIDVALIDITY <n>". The entry is the
//       folder's name in its partition's darius.deleted/ ("<time>-<unique id>").
//   undelete DELETED-NAME [NEW-NAME] [--json]
//       brings the folder back as NEW-NAME (an internal name; default: the name it had) with
//       its UIDVALIDITY, UIDs and flags (Store::undelete). DELETED-NAME is its entry, or its
//       internal name with the suffix IMAP shows ("user/alice/Old-20261127-12:00:00").
//
// Exit codes: 0 done, 1 failed (a taken name, over quota, no such deleted folder), 2 usage,
// 78 config.
//
// Thread-safety: single-threaded CLI code.
#pragma once

#include <string>

namespace darius::tools {

struct UndeleteCommand {
  bool list = false;
  std::string user;  // --list: one user's
  std::string deleted;
  std::string new_name;
  bool json = false;
};

int runUndeleteCommand(const std::string& config_path, const UndeleteCommand& cmd);

}  // namespace darius::tools
