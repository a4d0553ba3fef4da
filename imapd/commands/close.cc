// CLOSE (RFC 9051 §6.4.1) and UNSELECT (RFC 3691, RFC 9051 §6.4.2): leave the selected state.
// CLOSE first expunges the \Deleted messages silently — unless the mailbox is read-only
// or the user may not expunge (RFC 4314 §4: the "e" right) — and sends no EXPUNGE responses.
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

asio::awaitable<Reply> executeClose(Session& session, NoArgs) {
  SelectedMailbox* sel = session.selected();
  if (sel != nullptr && !sel->readOnly() && sel->has(mailbox::right::kExpunge)) {
    auto done = co_await session.blocking([&]() -> base::Result<uint64_t> {
      std::vector<uint32_t> doomed;
      for (uint32_t uid : sel->uids()) {
        DARIUS_ASSIGN_OR_RETURN(auto r, sel->record(uid));
        if (r && r->live() && (r->system_flags & mailbox::kFlagDeleted)) doomed.push_back(uid);
      }
      if (doomed.empty()) return uint64_t{0};
      return session.store().expunge(sel->name(), sel->mailbox(), doomed);
    });
    if (!done.ok()) log::warning(session.logContext(), "CLOSE expunge: {}", done.status().toString());
  }
  session.unselect();
  co_return Reply::ok("CLOSE completed");
}

asio::awaitable<Reply> executeUnselect(Session& session, NoArgs) {
  session.unselect();
  co_return Reply::ok("UNSELECT completed");
}

}  // namespace

CommandSpec closeCommand() {
  return makeCommand<NoArgs, parseNoArgs, executeClose>("CLOSE", stateBit(State::kSelected),
                                                        kExclusive);
}

CommandSpec unselectCommand() {
  return makeCommand<NoArgs, parseNoArgs, executeUnselect>("UNSELECT", stateBit(State::kSelected),
                                                           kExclusive);
}

}  // namespace darius::imapd
