// LISTRIGHTS (RFC 4314 §3.4, §3.7): "* LISTRIGHTS mailbox identifier required optional...",
// what the identifier can be granted on the mailbox. Needs "a" (§4). The identifier comes
// back as the client sent it (§3.4).
//
// Required: the rights this server always grants the identifier whatever the ACL says: the
// owner's l k x a on a personal mailbox, an admin's l a in their scope (for a negative
// identifier, none). Optional: every other right on its own — no rights are tied here —
// except "a" for anyone and anonymous, which is never granted (mailbox/acl_identifier.h); then
// the virtual "c" and "d" (§2.1.1) unless the required string holds them already.
#include "imapd/acl_reply.h"
#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct ListrightsArgs {
  std::string mailbox;
  std::string identifier;
};

base::Result<ListrightsArgs> parseListRights(ArgParser& p) {
  ListrightsArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.identifier, p.astring());
  return a;
}

mailbox::Rights alwaysGranted(const Session& session, const mailbox::AclIdentifier& id,
                              const mailbox::MailboxName& name) {
  if (id.negative || id.kind != mailbox::AclIdentifier::Kind::kUser) return 0;
  mailbox::Rights r = 0;
  if (name.isPersonal() && name.owner() == id.user.local && name.domain() == id.user.domain) {
    r |= mailbox::kImplicitOwnerRights;
  }
  if (session.admins() != nullptr &&
      session.admins()->administers({id.user.local, id.user.domain}, name.domain())) {
    r |= mailbox::kImplicitAdminRights;
  }
  return r;
}

asio::awaitable<Reply> executeListRights(Session& session, ListrightsArgs args) {
  auto target = aclMailbox(session, args.mailbox, mailbox::right::kAdmin);
  if (!target.ok()) co_return replyFor(session, target.status(), "LISTRIGHTS");
  IdentifierOrReply id = aclIdentifier(session, args.identifier, target->access.name);
  if (!id.id) co_return id.reply;
  const mailbox::Rights required = alwaysGranted(session, *id.id, target->access.name);
  mailbox::Rights grantable = mailbox::right::kAll;
  if (!id.id->negative && id.id->kind != mailbox::AclIdentifier::Kind::kUser) {
    grantable &= ~mailbox::right::kAdmin;
  }
  const std::string required_wire = mailbox::rightsToWire(required);
  std::string out = "LISTRIGHTS " + target->wire + " " + astringOut(args.identifier) + " " +
                    astringOut(required_wire);
  const mailbox::Rights optional = grantable & ~required;
  for (char c : mailbox::rightsToString(optional)) out += std::string(" ") + c;
  if (required_wire.find('c') == std::string::npos && (optional & mailbox::right::kCreate)) {
    out += " c";
  }
  constexpr mailbox::Rights kDeleteMembers = mailbox::right::kDeleteMailbox |
                                             mailbox::right::kDeleteMessage |
                                             mailbox::right::kExpunge;
  if (required_wire.find('d') == std::string::npos && (optional & kDeleteMembers)) out += " d";
  session.writeUntagged(out);
  co_return Reply::ok("LISTRIGHTS completed");
}

}  // namespace

CommandSpec listrightsCommand() {
  return makeCommand<ListrightsArgs, parseListRights, executeListRights>("LISTRIGHTS", kAfterLogin);
}

}  // namespace darius::imapd
