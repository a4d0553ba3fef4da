// SUBSCRIBE and UNSUBSCRIBE (RFC 9051 §6.3.7, §6.3.8): the user's subscription list
// (mailbox/subscriptions.h). A subscription is to a name: subscribing to a mailbox the user
// cannot see answers as if it did not exist (no existence leak), unsubscribing works for any
// valid name, existing or not (§6.3.8 allows removing stale entries).
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct SubscribeArgs {
  std::string mailbox;
};

base::Result<SubscribeArgs> parseSubscribe(ArgParser& p) {
  SubscribeArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  return a;
}

std::string userId(const Session& session) {
  return session.userName() ? session.userName()->userId() : session.user();
}

asio::awaitable<Reply> executeSubscribe(Session& session, SubscribeArgs args) {
  auto name = internalName(session, args.mailbox);
  if (!name.ok()) co_return noSuchMailbox();
  auto access = findMailbox(session, *name);
  if (!access.ok()) co_return replyFor(session, access.status(), "SUBSCRIBE");
  base::Status s = co_await session.blocking(
      [&] { return session.store().subscriptions().subscribe(userId(session), *name); });
  if (!s.isOk()) co_return replyFor(session, s, "SUBSCRIBE");
  co_return Reply::ok("SUBSCRIBE completed");
}

asio::awaitable<Reply> executeUnsubscribe(Session& session, SubscribeArgs args) {
  auto name = internalName(session, args.mailbox);
  if (!name.ok()) co_return Reply::no("Invalid mailbox name", "CANNOT");
  base::Status s = co_await session.blocking(
      [&] { return session.store().subscriptions().unsubscribe(userId(session), *name); });
  if (!s.isOk()) co_return replyFor(session, s, "UNSUBSCRIBE");
  co_return Reply::ok("UNSUBSCRIBE completed");
}

}  // namespace

CommandSpec subscribeCommand() {
  return makeCommand<SubscribeArgs, parseSubscribe, executeSubscribe>("SUBSCRIBE", kAfterLogin);
}

CommandSpec unsubscribeCommand() {
  return makeCommand<SubscribeArgs, parseSubscribe, executeUnsubscribe>("UNSUBSCRIBE", kAfterLogin);
}

}  // namespace darius::imapd
