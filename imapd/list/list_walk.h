// The entries of a LIST or LSUB response (RFC 9051 §6.3.9, RFC 5258, RFC 6154, RFC 3348,
// RFC 3501 §6.3.9), computed from the mailbox list and the user's subscriptions; the command
// files (imapd/commands/list.cc, lsub.cc) only format them and add STATUS (RFC 5819).
//
// How: the patterns decide which part of the mailbox list is read — one prefix scan of the
// subtree every match must lie in ("Other Users/bob/%" reads bob's mailboxes only, "Sent*"
// in the alternate namespace the user's own), a pattern without wildcards its mailbox up to
// the first visible descendant ("INBOX" in the alternate namespace: one lookup), or one
// scan of the user's domain when a pattern may match anywhere ("*", "%"). That last scan
// reads every mailbox entry of the domain, other users' included, because only their ACLs
// say whether this user may see them: its cost grows with the domain, not the user (an
// index of ACL grants by identifier in mailbox/ would make it the user's). Never a lookup
// per mailbox, never a mailbox opened. Each listed mailbox the user has the lookup right on
// (RFC 4314 §4) becomes a node under its external name, with every hierarchy level above it;
// the level nodes learn whether they have visible descendants, and whether some of those do
// not match the patterns. From that:
//   - \HasChildren / \HasNoChildren for every name (always, as IMAP4rev2 expects), counting
//     visible mailboxes only, so an invisible mailbox never shows through its parent;
//   - a level without a visible mailbox that matches a pattern is listed, \NonExistent
//     \HasChildren (\Noselect for IMAP4rev1's basic LIST), when a visible mailbox below it
//     does not match ("%" at the end: RFC 9051 §6.3.9; RFC 9051 §6.3.9.8 example 10);
//   - with SUBSCRIBED selection, the subscribed names (existing or not, \NonExistent when not
//     visible); with RECURSIVEMATCH also the matching names with a subscribed descendant that
//     does not match, with CHILDINFO (RFC 5258 §3.5; redundant CHILDINFO suppressed);
//   - LSUB: the subscribed names, \Noselect when not a visible selectable mailbox, and a
//     matching level above a subscribed name that does not match, \Noselect (RFC 3501
//     §6.3.9's rule for "%").
// Special-use attributes are shown for the user's own mailboxes only (RFC 6154 §2: they are
// the owner's advice, not everyone's). In the alternate namespace INBOX is \Noinferiors:
// nothing can be created below it there.
//
// Order: the user's INBOX (and, in the standard namespace, what is below it), the user's
// other mailboxes, other users', shared ones; within each, a parent before its children.
//
// Ownership: values; the walk borrows the Store and the Namespace for the call. Thread-safety:
// blocking reads of the mailbox list and subscriptions; run it on the session's blocking pool.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "imapd/list/list_pattern.h"
#include "lib/base/result.h"
#include "mailbox/acl.h"
#include "mailbox/mailbox_name.h"
#include "mailbox/namespace.h"
#include "mailbox/store.h"

namespace darius::imapd {

// Who is listing, copied out of the session so that the walk can run on another thread.
struct ListViewer {
  const mailbox::Namespace* ns = nullptr;
  mailbox::UserName user;       // external names are this user's view
  bool owns_mailboxes = true;   // false: `user` is a stand-in that owns nothing
  std::string acl_id;           // the ACL identifier (and subscription key) of the login
  // The login administers the mailboxes of every domain (global admin) / of admin_domain.
  bool global_admin = false;
  std::optional<std::string> admin_domain;
  bool administers(std::string_view domain) const {
    return global_admin || (admin_domain && *admin_domain == domain);
  }
};

enum class ListMode { kList, kLsub };

struct ListQuery {
  ListMode mode = ListMode::kList;
  std::vector<ListPattern> patterns;  // canonical patterns, reference applied
  bool select_subscribed = false;
  bool select_special_use = false;
  bool recursive_match = false;
  bool return_subscribed = false;
  bool return_special_use = false;
  // RFC 5819 / RFC 9051 §6.3.9.2: with STATUS asked, a mailbox the user may look up but not
  // read is listed \Noselect.
  bool return_status = false;
  // \NonExistent for names without a mailbox (LIST-EXTENDED, IMAP4rev2); \Noselect when
  // false (IMAP4rev1's basic LIST, which predates \NonExistent).
  bool nonexistent_attr = true;
  bool return_myrights = false;  // RFC 8440
};

struct ListedName {
  enum class Select { kSelectable, kNoselect, kNonExistent };

  std::string external;  // UTF-8, as Namespace::toExternal spells it
  Select select = Select::kSelectable;
  bool noinferiors = false;
  std::optional<bool> has_children;  // nullopt: not reported (LSUB)
  bool subscribed = false;           // report \Subscribed
  std::string special_use;           // "\Sent" ..., reported as is
  bool childinfo_subscribed = false; // ("CHILDINFO" ("SUBSCRIBED"))
  // The mailbox a STATUS response should follow for (LIST-STATUS: selectable and readable).
  std::optional<mailbox::MailboxName> status_mailbox;
  // The user's rights, for a MYRIGHTS response (RFC 8440 §3: a listable mailbox that meets
  // the selection criteria; not a level listed only for its children).
  std::optional<mailbox::Rights> myrights;

  // "\NonExistent \HasChildren \Subscribed" (without the parentheses).
  std::string attributes() const;
};

base::Result<std::vector<ListedName>> walkList(mailbox::Store& store, const ListViewer& viewer,
                                               const ListQuery& query);

// The reference and a pattern joined into the canonical pattern (RFC 9051 §6.3.9: the
// reference is a prefix, "Any part of the reference ... SHOULD prefix the interpreted form"):
// concatenated, with one separator dropped where the reference ends and the pattern starts
// with one (Cyrus's rule).
std::string canonicalPattern(std::string_view reference, std::string_view pattern, char sep);

}  // namespace darius::imapd
