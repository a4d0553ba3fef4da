// DELETEACL (RFC 4314 §3.2): "DELETEACL mailbox identifier" removes the identifier's entry
// ("-bob" is an entry of its own: deleting "bob" leaves it). Needs "a" (§4). Removing an
// entry that is not there succeeds and changes nothing. Replies as SETACL's (setacl.cc).
#include "imapd/acl_reply.h"
#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct DeleteaclArgs {
  std::string mailbox;
  std::string identifier;
};

base::Result<DeleteaclArgs> parseDeleteAcl(ArgParser& p) {
  DeleteaclArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.identifier, p.astring());
  return a;
}

asio::awaitable<Reply> executeDeleteAcl(Session& session, DeleteaclArgs args) {
  auto target = aclMailbox(session, args.mailbox, mailbox::right::kAdmin);
  if (!target.ok()) co_return replyFor(session, target.status(), "DELETEACL");
  IdentifierOrReply id = aclIdentifier(session, args.identifier, target->access.name);
  if (!id.id) co_return id.reply;
  auto done = co_await session.blocking([&] {
    return session.store().editAcl(target->access.name, id.id->canonical, mailbox::RightsChange{});
  });
  if (!done.ok()) co_return replyFor(session, done.status(), "DELETEACL");
  co_return Reply::ok("DELETEACL completed");
}

}  // namespace

CommandSpec deleteaclCommand() {
  return makeCommand<DeleteaclArgs, parseDeleteAcl, executeDeleteAcl>("DELETEACL", kAfterLogin);
}

}  // namespace darius::imapd
