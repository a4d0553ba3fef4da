// IDLE (RFC 2177, RFC 9051 §6.3.13): the client waits for updates until it sends DONE.
//
// While idling, a second coroutine on the session's strand waits on the session's Waker,
// which the ChangeHub wakes when the change log names the selected mailbox (any process's
// change, through inotify: no timer polls the disk), and sends the updates at once, EXPUNGE
// included (§6.3.13 allows them). The main coroutine only reads: DONE ends the command, and
// it waits for the notifier to finish any write in progress before the tagged OK.
#include <asio/detached.hpp>

#include "imapd/commands/commands.h"
#include "imapd/session.h"
#include "lib/proto/chars.h"

namespace darius::imapd {
namespace {

struct IdleState {
  bool done = false;
  bool running = false;
  std::shared_ptr<Waker> finished;
};

// `running` is set by the caller before the spawn, so the caller always waits for this to end.
asio::awaitable<void> notifier(Session& session, std::shared_ptr<IdleState> state) {
  while (!state->done && session.state() == State::kSelected) {
    co_await session.waker().wait();
    if (state->done) break;
    co_await session.sendUpdates(/*allow_expunge=*/true);
    if (!(co_await session.connection().flush()).isOk()) break;
  }
  state->running = false;
  state->finished->wake();
}

asio::awaitable<Reply> execute(Session& session, NoArgs) {
  if (session.selected() != nullptr) co_await session.sendUpdates(true);
  if (!(co_await session.sendContinuation("idling")).isOk()) co_return Reply::none();
  auto state = std::make_shared<IdleState>();
  bool watching = session.selected() != nullptr && session.hasChangeHub();
  if (watching) {
    state->finished = std::make_shared<Waker>(session.connection().executor());
    state->running = true;
    asio::co_spawn(session.connection().executor(), notifier(session, state), asio::detached);
  }
  auto line = co_await session.readClientLine();
  state->done = true;
  if (watching) {
    session.waker().wake();
    while (state->running) co_await state->finished->wait();
  }
  if (!line.ok()) {
    if (line.status().code() == base::Code::kTooBig) co_return Reply::bad("Line too long", "TOOBIG");
    co_return Reply::none();  // readClientLine has ended the session
  }
  if (!proto::equalsIgnoreCase(*line, "DONE")) co_return Reply::bad("Expected DONE");
  co_return Reply::ok("IDLE terminated");
}

}  // namespace

CommandSpec idleCommand() {
  return makeCommand<NoArgs, parseNoArgs, execute>("IDLE", kAfterLogin, kExclusive);
}

}  // namespace darius::imapd
