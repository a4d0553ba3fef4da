// What the ACL commands of RFC 4314 §3 (imapd/commands/setacl.cc, deleteacl.cc, getacl.cc,
// listrights.cc, myrights.cc) and LIST's MYRIGHTS return option (RFC 8440) share: resolving
// the mailbox argument with the rights a command needs (no existence disclosure: the rules of
// imapd/mailbox_access.h), turning the identifier argument into its stored spelling
// (mailbox/acl_identifier.h) with the RFC's replies, and the output forms.
//
// Thread-safety: functions of one session's strand.
#pragma once

#include <string>
#include <string_view>

#include "imapd/command_table.h"
#include "imapd/mailbox_access.h"
#include "lib/base/result.h"
#include "mailbox/acl_identifier.h"

namespace darius::imapd {

// The mailbox of an ACL command and its name as the client gets it back.
struct AclMailbox {
  MailboxAccess access;
  std::string wire;  // quoted or literal
};

// `wire` (a mailbox argument) with every right of `need`: kNotFound for a name that does not
// parse, names another domain, does not exist or shows nothing to the user; kPermission when
// visible without `need`. replyFor() turns both into the tagged NO.
base::Result<AclMailbox> aclMailbox(Session& session, std::string_view wire,
                                    mailbox::Rights need);

// The identifier argument for the ACL of `mailbox`; on failure the tagged reply: BAD for an
// identifier RFC 4314 §3 calls invalid (empty, "-", control characters, a malformed user
// id), NO [CANNOT] for a user of another domain.
struct IdentifierOrReply {
  std::optional<mailbox::AclIdentifier> id;
  Reply reply;
};
IdentifierOrReply aclIdentifier(const Session& session, std::string_view wire,
                                const mailbox::MailboxName& mailbox);

// An astring for server output: an atom when it can be one (Cyrus sends "bob lr", and
// cyradm prints what it gets), else quoted or a literal; "" for the empty string.
std::string astringOut(std::string_view s);

}  // namespace darius::imapd
