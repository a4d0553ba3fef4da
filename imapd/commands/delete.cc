// DELETE (RFC 9051 §6.3.5): moves the mailbox into its partition's deleted area (two-phase
// delete, DESIGN.md §3); child mailboxes stay. INBOX cannot be deleted. Needs the "x" right
// (RFC 4314 §4; admins of the domain need none); a mailbox the user may not know of answers
// as missing, one they may see but not delete NO [NOPERM]. The ACL goes with the mailbox. Deleting the selected
// mailbox is allowed; that session is told BYE at its next update, others see it vanish.
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct DeleteArgs {
  std::string mailbox;
};

base::Result<DeleteArgs> parseDelete(ArgParser& p) {
  DeleteArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  return a;
}

asio::awaitable<Reply> executeDelete(Session& session, DeleteArgs args) {
  auto name = internalName(session, args.mailbox);
  if (!name.ok()) co_return noSuchMailbox();
  if (name->isInbox()) co_return Reply::no("INBOX cannot be deleted", "CANNOT");
  // "x", or an admin of the mailbox's domain (Cyrus's rule, imapd/mailbox_access.h).
  auto access = requireRights(session, *name,
                              mayAdminister(session, *name) ? 0 : mailbox::right::kDeleteMailbox);
  if (!access.ok()) co_return replyFor(session, access.status(), "DELETE");
  if (session.selected() != nullptr && session.selected()->name() == *name) {
    session.unselect();  // RFC 9051 §6.3.5 leaves it to us; a deleted mailbox cannot stay selected
  }
  base::Status s = co_await session.blocking([&] { return session.store().remove(*name); });
  if (!s.isOk()) co_return replyFor(session, s, "DELETE");
  co_return Reply::ok("DELETE completed");
}

}  // namespace

CommandSpec deleteCommand() {
  return makeCommand<DeleteArgs, parseDelete, executeDelete>("DELETE", kAfterLogin);
}

}  // namespace darius::imapd
