// DELETE (RFC 9051 §6.3.5): moves the mailbox into its partition's deleted area (two-phase
// delete, DESIGN.md §3); child mailboxes stay. INBOX cannot be deleted. Needs the "x" right
// (RFC 4314 §4); a mailbox the user cannot see answers as missing. Deleting the selected
// mailbox is allowed; that session is told BYE at its next update, others see it vanish.
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct DeleteArgs {
  std::string mailbox;
};

base::Result<DeleteArgs> parse(ArgParser& p) {
  DeleteArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  return a;
}

asio::awaitable<Reply> execute(Session& session, DeleteArgs args) {
  auto name = internalName(session, args.mailbox);
  if (!name.ok()) co_return noSuchMailbox();
  if (name->isInbox()) co_return Reply::no("INBOX cannot be deleted", "CANNOT");
  auto access = findMailbox(session, *name);
  if (!access.ok()) co_return replyFor(session, access.status(), "DELETE");
  if (!access->has(mailbox::right::kDeleteMailbox)) {
    co_return Reply::no("Permission denied", "NOPERM");
  }
  if (session.selected() != nullptr && session.selected()->name() == *name) {
    session.unselect();  // RFC 9051 §6.3.5 leaves it to us; a deleted mailbox cannot stay selected
  }
  base::Status s = co_await session.blocking([&] { return session.store().remove(*name); });
  if (!s.isOk()) co_return replyFor(session, s, "DELETE");
  co_return Reply::ok("DELETE completed");
}

}  // namespace

CommandSpec deleteCommand() {
  return makeCommand<DeleteArgs, parse, execute>("DELETE", kAfterLogin);
}

}  // namespace darius::imapd
