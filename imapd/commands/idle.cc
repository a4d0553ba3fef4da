// IDLE (RFC 2177, RFC 9051 §6.3.13): the client waits for updates until it sends DONE.
//
// The session races two waits: its Waker, which the ChangeHub wakes when the change log names
// the selected mailbox (any process's change, through inotify: no timer polls the disk), and
// the connection becoming readable. A wake-up sends the updates at once, EXPUNGE included
// (§6.3.13 allows them), and waits again; input ends the wait and the line is read as DONE.
// Neither wait consumes anything when the other wins, so no byte from the client is lost and
// no write overlaps a read.
#include <asio/experimental/awaitable_operators.hpp>

#include "imapd/commands/commands.h"
#include "imapd/session.h"
#include "lib/proto/chars.h"

namespace darius::imapd {
namespace {

using namespace asio::experimental::awaitable_operators;

asio::awaitable<Reply> executeIdle(Session& session, NoArgs) {
  if (session.selected() != nullptr) co_await session.sendUpdates(true);
  if (!(co_await session.sendContinuation("idling")).isOk()) co_return Reply::none();
  if (session.selected() != nullptr && session.hasChangeHub()) {
    for (;;) {
      auto which = co_await (session.waker().wait() || session.connection().waitReadable());
      if (which.index() == 1) break;  // input (or an error the read below will report)
      co_await session.sendUpdates(/*allow_expunge=*/true);
      if (session.state() != State::kSelected) co_return Reply::none();  // BYE went out
      if (!(co_await session.connection().flush()).isOk()) co_return Reply::none();
    }
  }
  auto line = co_await session.readClientLine();
  if (!line.ok()) {
    if (line.status().code() == base::Code::kTooBig) co_return Reply::bad("Line too long", "TOOBIG");
    co_return Reply::none();  // readClientLine has ended the session
  }
  if (!proto::equalsIgnoreCase(*line, "DONE")) co_return Reply::bad("Expected DONE");
  co_return Reply::ok("IDLE terminated");
}

}  // namespace

CommandSpec idleCommand() {
  return makeCommand<NoArgs, parseNoArgs, executeIdle>("IDLE", kAfterLogin, kExclusive);
}

}  // namespace darius::imapd
