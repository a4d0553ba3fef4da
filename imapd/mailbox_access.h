// Mailbox names and access for the IMAP commands: the wire name of a mailbox argument to its
// internal name and back (modified UTF-7, RFC 9051 §5.1.3, unless the client enabled
// UTF8=ACCEPT; then the namespace, mailbox/namespace.h), and what the user may do there
// (RFC 4314 rights from the mailbox's ACL).
//
// The RFC 4314 §4 table lives here, not in each command: findMailbox() decides whether the
// user may know a mailbox exists, requireRights() whether they may do what the command needs,
// and the admin rule for namespace operations is mayAdminister(). docs/design/acl.md has the
// table of what each command needs.
//
// Errors never tell a user whether a mailbox they may not see exists (issue 6, Security): a
// mailbox on which the user has none of RFC 4314's "Any" rights (l r i k x a,
// mailbox::kRevealingRights) answers exactly like a missing one ([NONEXISTENT], or TRYCREATE
// where the command offers it); [NOPERM] only goes to a user who may know it is there.
//
// Also the one place that turns store errors into tagged replies (DESIGN.md §5).
//
// Thread-safety: functions of one session's strand.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "imapd/command_table.h"
#include "lib/base/result.h"
#include "mailbox/acl.h"
#include "mailbox/mailbox_list.h"
#include "mailbox/mailbox_name.h"
#include "mailbox/store.h"

namespace darius::imapd {

class Session;

// A listed mailbox the user may see, with the user's rights on it.
struct MailboxAccess {
  mailbox::MailboxName name;
  mailbox::MailboxEntry entry;
  mailbox::Rights rights = 0;
  bool has(mailbox::Rights r) const { return (rights & r) == r; }
};

// The mailbox argument as sent (already an astring, INBOX normalised) -> internal name.
// kInvalid (with the reason, for a NO or BAD), kTooBig, kPermission for another domain.
// RFC 6855 §3: after ENABLE UTF8=ACCEPT, mailbox names go over the wire as UTF-8, not as
// modified UTF-7.
bool utf8Names(const Session& session);

base::Result<mailbox::MailboxName> internalName(const Session& session, std::string_view wire);
// Internal name -> the user's name in wire form, quoted or a literal ("INBOX.Sent",
// "&ZeVnLIqe-"). kPermission when the user cannot see names there (another domain).
base::Result<std::string> wireName(const Session& session, const mailbox::MailboxName& name);
// The user's name for `name`, UTF-8 or mUTF-7, unquoted (for LIST pattern matching).
base::Result<std::string> externalName(const Session& session, const mailbox::MailboxName& name);

// A name in one of the reserved areas of two-phase expunge and delete
// (docs/design/expunge.md, docs/design/naming.md):
//   `.EXPUNGED<sep><folder>`                      the expunged messages of a live folder
//   `.DELETED<sep><folder>-<YYYYMMDD-HH:MM:SS>`   a folder DELETE kept
//   `.EXPUNGED<sep>.DELETED<sep><folder>-<...>`   the expunged messages of a deleted one
struct AreaName {
  enum class Kind { kExpunged, kDeleted, kDeletedExpunged };
  Kind kind = Kind::kExpunged;
  mailbox::MailboxName name;  // the live folder, or the deleted folder's old name
  int64_t deleted_at = 0;     // the deleted kinds: the DELETE's time and ordinal
  uint32_t ordinal = 1;
  bool isDeleted() const { return kind != Kind::kExpunged; }
};
// nullopt when `wire` is in neither area; kInvalid for an area itself, a deleted name without
// its time, or a folder part that is no name.
base::Result<std::optional<AreaName>> areaNameOf(const Session& session, std::string_view wire);

// A view of the areas the user may open, with its rights (read-only: l, and r for the owner,
// or for an admin whom the folder's ACL gives r; FETCH, SEARCH, COPY out). For a deleted
// folder, the folder, and an entry made from its header.
struct AreaView {
  AreaName area;
  MailboxAccess access;
  std::optional<mailbox::DeletedMailbox> deleted;
};
// Only the owner of a personal folder, or an admin of its domain, sees its views; kNotFound
// otherwise (as for a folder they may not see), and for a live folder or deleted folder that
// does not exist. Reads the deleted area: call it from the blocking pool.
// kPermission (NOPERM: they may know it is there) when the rights lack `need`.
base::Result<AreaView> areaViewAccess(Session& session, const AreaName& area,
                                      mailbox::Rights need);
// Opens the view (Store::openExpungedView, Store::openDeleted). Blocking.
base::Result<mailbox::OpenMailbox> openAreaView(Session& session, const AreaView& view);
bool isOwner(const Session& session, const mailbox::MailboxName& name);
// The login's ACL identifier: its user id, or "" for a login that is no user name (it then
// gets only what `anyone` has: "" never equals a stored identifier).
std::string aclIdentity(const Session& session);
mailbox::Rights rightsOn(const Session& session, const mailbox::MailboxName& name,
                         const mailbox::MailboxEntry& entry);
// The login is an admin (auth/admins.h) of the mailbox's domain. Admins have the implicit
// l and a (mailbox::kImplicitAdminRights) and, as Cyrus's admins, may CREATE, DELETE and
// RENAME mailboxes anywhere in their scope; never read mail without an ACL entry.
bool mayAdminister(const Session& session, const mailbox::MailboxName& name);

// The listed mailbox `name` if the user may know it exists: kNotFound when it does not
// exist, is a \Noselect level, or the user has none of mailbox::kRevealingRights.
base::Result<MailboxAccess> findMailbox(Session& session, const mailbox::MailboxName& name);
// findMailbox(), then kPermission unless the user has every right of `need` (RFC 4314 §4).
// replyFor() makes [NONEXISTENT] and [NOPERM] of them.
base::Result<MailboxAccess> requireRights(Session& session, const mailbox::MailboxName& name,
                                          mailbox::Rights need);

// RFC 4314 §4: the flags a user with `rights` may set (APPEND, COPY, MOVE): \Seen needs "s",
// \Deleted "t", the other system flags and keywords "w".
mailbox::CopyFlags settableFlags(mailbox::Rights rights);

// The tagged NO for a store error: NONEXISTENT, ALREADYEXISTS, NOPERM, TOOBIG, OVERQUOTA,
// LIMIT, CANNOT, or SERVERBUG/UNAVAILABLE for what is the server's fault (logged).
Reply replyFor(Session& session, const base::Status& status, std::string_view what);
// NO [NONEXISTENT] in the words RFC 9051 §7.1 suggests.
Reply noSuchMailbox();

}  // namespace darius::imapd
