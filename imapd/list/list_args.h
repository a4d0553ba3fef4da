// The typed arguments of LIST and LSUB, and their parser:
//
//   list = "LIST" [SP list-select-opts] SP mailbox SP mbox-or-pat [SP list-return-opts]
//   lsub = "LSUB" SP mailbox SP list-mailbox
//
// (RFC 9051 §6.3.9 and §9, RFC 5258 §3 and §6, RFC 5819, RFC 6154 §6, RFC 3501 §6.3.9). The
// extended syntax is in use when selection options, a parenthesised pattern list or return
// options are present (RFC 9051 §6.3.9, conditions 1–3); then an empty pattern is ignored
// instead of asking for the hierarchy delimiter.
//
// What the parser refuses (kInvalid, the text of the BAD): an option it does not know (RFC
// 5258 §3: "MUST respond to options it does not recognize with a BAD"), an option value where
// none is defined, RECURSIVEMATCH without a base selection option (RFC 5258 §3.1: alone or
// with REMOTE only), an unknown or missing STATUS item, "()" as a pattern list, unbalanced
// or unterminated lists, 8-bit bytes outside strings. Over kMaxListPatterns patterns is
// kTooBig (BAD [TOOBIG]): each pattern is matched against every name, so their number is
// what a client could make the server work for. A repeated option counts once (RFC 5258
// §3); repeated STATUS items are sent once, in the order first asked.
//
// Names and patterns are returned as sent (mUTF-7 or UTF-8, not decoded: that depends on
// the session's UTF8=ACCEPT); the reference goes through ArgParser::mailbox(), so any case of
// "INBOX" comes back as "INBOX".
//
// Ownership: values. Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "imapd/command_table.h"
#include "imapd/status_items.h"
#include "lib/base/result.h"

namespace darius::imapd {

inline constexpr size_t kMaxListPatterns = 64;

struct ListArgs {
  bool extended = false;  // the RFC 5258 syntax was used

  // Selection options (RFC 5258 §3.1, RFC 6154 §2).
  bool select_subscribed = false;
  bool select_remote = false;  // accepted; there are no remote mailboxes
  bool select_recursive = false;
  bool select_special_use = false;

  std::string reference;
  std::vector<std::string> patterns;  // at least one; may hold "" (see above)

  // Return options (RFC 5258 §3.2, RFC 5819, RFC 6154 §2, RFC 8440); the selection options SUBSCRIBED
  // and SPECIAL-USE imply the return options of the same name, which the parser sets.
  bool return_subscribed = false;
  bool return_children = false;
  bool return_special_use = false;
  bool return_status = false;
  std::vector<StatusItem> status_items;  // non-empty when return_status
  bool return_myrights = false;          // RFC 8440

  bool operator==(const ListArgs&) const = default;
};

// The arguments after "LIST" (the parser stands on the SP after the command name).
base::Result<ListArgs> parseListArgs(ArgParser& p);
// The arguments after "LSUB": reference and one pattern, basic syntax only.
base::Result<ListArgs> parseLsubArgs(ArgParser& p);

// list-mailbox = 1*list-char / string; list-char = ATOM-CHAR / "%" / "*" / "]".
base::Result<std::string> parseListMailbox(ArgParser& p);

}  // namespace darius::imapd
