// `darius expire` and `darius unexpunge`: phase two of two-phase expunge by hand, the
// per-owner policy overrides, and its undo (docs/design/expunge.md). All go through
// mailbox::Store, which takes the same locks as dariusd's sessions, so they run while dariusd
// does.
//
//   expire [-n] [--user U | --all] [--now] [--at TIME] [--json]
//       applies the expire policy (expunge_vol_min/max, expunge_timeout: config.md) to one
//       user's mailboxes or to every owner's, and prints per owner what it held and removed:
//       "<owner>: held N messages (B bytes), removed N (B bytes)", then one indented line per
//       mailbox that lost something. Then the same for the folders DELETE kept, by the
//       deleted_* policy: "<owner>: held N deleted folders (B bytes), removed N (B bytes)",
//       one indented line per folder removed. -n removes nothing (what would go). --now
//       removes every expunged message and deleted folder whatever the policy. --at runs the
//       policy as if it were TIME.
//   expire policy show [--user U | --mailbox NAME] [--json]
//       the effective policies of one owner (default and override side by side), or every
//       owner's overrides. Owners: a user (--user, as login names go) or a shared mailbox
//       (--mailbox, internal name such as shared/news).
//   expire policy set (--user U | --mailbox NAME) [--expunge-vol-min SIZE] [--expunge-vol-max
//       SIZE] [--expunge-vol-overflow SIZE] [--expunge-timeout DURATION] [--deleted-vol-min
//       SIZE] ... [--deleted-timeout DURATION] [--json]
//       overrides the given settings for that owner (one db transaction); the value `default`
//       drops that override again. SIZE and DURATION as in the config ("50M", "28d").
//   expire policy clear (--user U | --mailbox NAME)
//       drops every override of the owner.
//   unexpunge MAILBOX [--uid N]... [--since TIME] [--all] [--into FOLDER] [--json]
//       Cyrus's unexpunge: copies expunged messages of MAILBOX (internal name) whose files
//       are still there back into FOLDER (default MAILBOX itself) with new UIDs and their
//       flags, and prints "restored N: OLD->NEW ...". --since picks those expunged at or
//       after TIME. Exactly one of --uid, --since and --all.
//
// TIME is seconds since the epoch, or UTC "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SS".
// Exit codes: 0 done, 1 failed, 2 usage, 78 config.
//
// Thread-safety: single-threaded CLI code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace darius::tools {

struct ExpireCommand {
  std::string user;
  bool all = false;
  bool dry_run = false;
  bool everything = false;  // --now
  std::string at;           // --at TIME
  bool json = false;
};

struct ExpirePolicyCommand {
  std::string action;  // show, set, clear
  std::string user;
  std::string mailbox;
  // By kExpireOverrideFields index: the text given ("50M", "28d", "default"), if any.
  std::vector<std::optional<std::string>> values;
  bool json = false;
};

struct UnexpungeCommand {
  std::string mailbox;
  std::vector<uint32_t> uids;
  std::string since;
  bool all = false;
  std::string into;
  bool json = false;
};

// TIME as documented above; nullopt when it is neither form.
std::optional<int64_t> parseCliTime(const std::string& text);

int runExpireCommand(const std::string& config_path, const ExpireCommand& cmd);
int runExpirePolicyCommand(const std::string& config_path, const ExpirePolicyCommand& cmd);
int runUnexpungeCommand(const std::string& config_path, const UnexpungeCommand& cmd);

}  // namespace darius::tools
