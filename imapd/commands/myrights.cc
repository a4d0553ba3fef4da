// MYRIGHTS (RFC 4314 §3.5, §3.8): "* MYRIGHTS mailbox rights", the login's effective rights
// (ACL entries for the user and anyone, less the negative ones, plus the owner's and an
// admin's implicit rights: mailbox::effectiveRights), in wire form with "c" and "d". Needs
// any of l r i k x a (§4 "Any"); without one the mailbox does not exist for the user.
#include "imapd/acl_reply.h"
#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct MyrightsArgs {
  std::string mailbox;
};

base::Result<MyrightsArgs> parseMyRights(ArgParser& p) {
  MyrightsArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  return a;
}

asio::awaitable<Reply> executeMyRights(Session& session, MyrightsArgs args) {
  auto target = aclMailbox(session, args.mailbox, 0);
  if (!target.ok()) co_return replyFor(session, target.status(), "MYRIGHTS");
  session.writeUntagged("MYRIGHTS " + target->wire + " " +
                        astringOut(mailbox::rightsToWire(target->access.rights)));
  co_return Reply::ok("MYRIGHTS completed");
}

}  // namespace

CommandSpec myrightsCommand() {
  return makeCommand<MyrightsArgs, parseMyRights, executeMyRights>("MYRIGHTS", kAfterLogin);
}

}  // namespace darius::imapd
