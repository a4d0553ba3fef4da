// EXPUNGE (RFC 9051 §6.4.3) and UID EXPUNGE (RFC 4315 §2.1, RFC 9051 §6.4.9): phase-1
// expunge of the \Deleted messages (of the given UIDs), reported with EXPUNGE responses, or
// VANISHED once QRESYNC is enabled (RFC 7162 §3.2.10), through the session's update path.
// Needs the "e" right (RFC 4314 §4); a read-only mailbox cannot be expunged.
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct ExpungeArgs {
  std::optional<proto::SequenceSet> uids;  // UID EXPUNGE
};

base::Result<ExpungeArgs> parseExpunge(ArgParser&) { return ExpungeArgs{}; }

base::Result<ExpungeArgs> parseUidExpungeArgs(ArgParser& p) {
  ExpungeArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.uids, p.sequenceSet({}));
  return a;
}

asio::awaitable<Reply> executeExpunge(Session& session, ExpungeArgs args) {
  SelectedMailbox& sel = *session.selected();
  if (sel.readOnly()) co_return Reply::no("Mailbox is read-only", "READ-ONLY");
  if (!sel.has(mailbox::right::kExpunge)) co_return Reply::no("Permission denied", "NOPERM");
  std::vector<uint32_t> scope;
  if (args.uids) {
    proto::SequenceSet set = args.uids->substituteLastResult(session.savedResult());
    scope = sel.resolve(set, /*by_uid=*/true);
  } else {
    scope = sel.uids();
  }
  auto done = co_await session.blocking([&]() -> base::Result<uint64_t> {
    std::vector<uint32_t> doomed;
    for (uint32_t uid : scope) {
      DARIUS_ASSIGN_OR_RETURN(auto r, sel.record(uid));
      if (r && r->live() && (r->system_flags & mailbox::kFlagDeleted)) doomed.push_back(uid);
    }
    if (doomed.empty()) return uint64_t{0};
    return session.store().expunge(sel.name(), sel.mailbox(), doomed);
  });
  if (!done.ok()) co_return replyFor(session, done.status(), "EXPUNGE");
  // The EXPUNGE (or VANISHED) responses go out with the session's updates, now allowed.
  if (*done != 0 && session.updateStyle().condstore) {
    co_return Reply::ok("EXPUNGE completed", "HIGHESTMODSEQ " + std::to_string(*done));
  }
  co_return Reply::ok("EXPUNGE completed");
}

}  // namespace

CommandSpec expungeCommand() {
  return makeCommand<ExpungeArgs, parseExpunge, executeExpunge>("EXPUNGE",
                                                                stateBit(State::kSelected));
}

base::Result<std::unique_ptr<PreparedCommand>> parseUidExpunge(ArgParser& p) {
  return internal::parseAndBind<ExpungeArgs, parseUidExpungeArgs, executeExpunge>(p);
}

}  // namespace darius::imapd
