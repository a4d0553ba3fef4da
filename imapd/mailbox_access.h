// Mailbox names and access for the IMAP commands: the wire name of a mailbox argument to its
// internal name and back (modified UTF-7, RFC 9051 §5.1.3, unless the client enabled
// UTF8=ACCEPT; then the namespace, mailbox/namespace.h), and what the user may do there
// (RFC 4314 rights from the mailbox's ACL).
//
// Errors never tell a user whether a mailbox they may not see exists (issue 6, Security): a
// mailbox without the lookup or read right answers exactly like a missing one.
//
// Also the one place that turns store errors into tagged replies (DESIGN.md §5).
//
// Thread-safety: functions of one session's strand.
#pragma once

#include <string>
#include <string_view>

#include "imapd/command_table.h"
#include "lib/base/result.h"
#include "mailbox/acl.h"
#include "mailbox/mailbox_list.h"
#include "mailbox/mailbox_name.h"

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
base::Result<mailbox::MailboxName> internalName(const Session& session, std::string_view wire);
// Internal name -> the user's name in wire form, quoted or a literal ("INBOX.Sent",
// "&ZeVnLIqe-"). kPermission when the user cannot see names there (another domain).
base::Result<std::string> wireName(const Session& session, const mailbox::MailboxName& name);
// The user's name for `name`, UTF-8 or mUTF-7, unquoted (for LIST pattern matching).
base::Result<std::string> externalName(const Session& session, const mailbox::MailboxName& name);

bool isOwner(const Session& session, const mailbox::MailboxName& name);
mailbox::Rights rightsOn(const Session& session, const mailbox::MailboxName& name,
                         const mailbox::MailboxEntry& entry);

// The listed mailbox `name` if the user may see it: kNotFound when it does not exist, is a
// \Noselect level, or the user has neither the lookup nor the read right.
base::Result<MailboxAccess> findMailbox(Session& session, const mailbox::MailboxName& name);

// The tagged NO for a store error: NONEXISTENT, ALREADYEXISTS, NOPERM, TOOBIG, OVERQUOTA,
// LIMIT, CANNOT, or SERVERBUG/UNAVAILABLE for what is the server's fault (logged).
Reply replyFor(Session& session, const base::Status& status, std::string_view what);
// NO [NONEXISTENT] in the words RFC 9051 §7.1 suggests.
Reply noSuchMailbox();

}  // namespace darius::imapd
