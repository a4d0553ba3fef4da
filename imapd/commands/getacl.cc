// GETACL (RFC 4314 §3.3, §3.6): "* ACL mailbox identifier rights ..." with every stored
// entry, negative ones included, rights in wire form (the virtual "c" and "d" added, §2.1.1).
// Needs "a" (§4). The owner's implicit rights are not entries and are not listed (LISTRIGHTS
// shows them as always granted). A stored ACL that does not parse is the server's fault:
// NO [SERVERBUG], logged.
#include "imapd/acl_reply.h"
#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct GetaclArgs {
  std::string mailbox;
};

base::Result<GetaclArgs> parseGetAcl(ArgParser& p) {
  GetaclArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  return a;
}

asio::awaitable<Reply> executeGetAcl(Session& session, GetaclArgs args) {
  auto target = aclMailbox(session, args.mailbox, mailbox::right::kAdmin);
  if (!target.ok()) co_return replyFor(session, target.status(), "GETACL");
  auto acl = mailbox::Acl::parse(target->access.entry.acl);
  if (!acl.ok()) {
    co_return replyFor(session, base::Status::corruption(acl.status().message()), "GETACL");
  }
  std::string out = "ACL " + target->wire;
  for (const mailbox::AclEntry& e : acl->entries()) {
    out += " " + astringOut(e.identifier) + " " + astringOut(mailbox::rightsToWire(e.rights));
  }
  session.writeUntagged(out);
  co_return Reply::ok("GETACL completed");
}

}  // namespace

CommandSpec getaclCommand() {
  return makeCommand<GetaclArgs, parseGetAcl, executeGetAcl>("GETACL", kAfterLogin);
}

}  // namespace darius::imapd
