// NOOP (RFC 9051 §6.1.2): does nothing; once a mailbox is selected it will be the point where
// pending untagged updates are sent.
#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

asio::awaitable<Reply> executeNoop(Session&, NoArgs) { co_return Reply::ok("NOOP completed"); }

}  // namespace

CommandSpec noopCommand() {
  return makeCommand<NoArgs, parseNoArgs, executeNoop>("NOOP", kAnyState);
}

}  // namespace darius::imapd
