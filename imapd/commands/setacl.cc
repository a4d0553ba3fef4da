// SETACL (RFC 4314 §3.1): "SETACL mailbox identifier mod-rights", where mod-rights is an
// optional "+" (add) or "-" (remove) and the rights letters (without a prefix they replace
// the identifier's rights; empty rights remove the entry, as DELETEACL does).
//
// Needs "a" on the mailbox (§4); admins have it implicitly in their scope. Replies: an unknown
// right is BAD (§3.1: never silently ignored) and is checked before the mailbox, so it tells
// nothing about mailboxes; a mailbox the user may not know of is NO [NONEXISTENT], one they
// may only see is NO [NOPERM]; an invalid identifier is BAD (§3), a user of another domain
// NO [CANNOT], "a" for anyone or anonymous NO [CANNOT] (mailbox/acl_identifier.h), a user
// id the user store does not know NO [CANNOT] (a typo would otherwise grant nothing, silently,
// or grant a user created later by that name; taking rights away, "-rights" and DELETEACL,
// still works for such entries). The
// change is durable and logged before the OK (Store::editAcl). The owner of a personal
// mailbox keeps l, k, x and a whatever the ACL says, so nobody locks themselves out.
#include "imapd/acl_reply.h"
#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct SetaclArgs {
  std::string mailbox;
  std::string identifier;
  mailbox::RightsChange change;
};

base::Result<SetaclArgs> parseSetAcl(ArgParser& p) {
  SetaclArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.identifier, p.astring());
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(std::string rights, p.astring());
  auto change = mailbox::parseRightsChange(rights);
  if (!change.ok()) return base::Status::invalid("SETACL: " + change.status().message());
  a.change = *change;
  return a;
}

asio::awaitable<Reply> executeSetAcl(Session& session, SetaclArgs args) {
  auto target = aclMailbox(session, args.mailbox, mailbox::right::kAdmin);
  if (!target.ok()) co_return replyFor(session, target.status(), "SETACL");
  IdentifierOrReply id = aclIdentifier(session, args.identifier, target->access.name);
  if (!id.id) co_return id.reply;
  base::Status allowed = mailbox::checkGrant(*id.id, args.change);
  if (!allowed.isOk()) co_return Reply::no(allowed.message(), "CANNOT");
  bool unknown_user = false;
  auto done = co_await session.blocking([&]() -> base::Result<mailbox::Acl> {
    if (mailbox::grantsToUser(*id.id, args.change)) {
      auto known = session.users().lookup(id.id->subject());
      unknown_user = known.status().code() == base::Code::kNotFound;
      if (!known.ok()) return known.status();
    }
    return session.store().editAcl(target->access.name, id.id->canonical, args.change);
  });
  if (unknown_user) co_return Reply::no("SETACL: no such user", "CANNOT");
  if (!done.ok()) co_return replyFor(session, done.status(), "SETACL");
  co_return Reply::ok("SETACL completed");
}

}  // namespace

CommandSpec setaclCommand() {
  return makeCommand<SetaclArgs, parseSetAcl, executeSetAcl>("SETACL", kAfterLogin);
}

}  // namespace darius::imapd
