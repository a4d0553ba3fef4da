// CHECK (RFC 3501 §6.4.1): a checkpoint. Every change is durable when its command completes
// here, so there is nothing to do but report updates; IMAP4rev2 dropped the command
// (RFC 9051 Appendix E) and it stays for IMAP4rev1 clients.
#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

asio::awaitable<Reply> executeCheck(Session&, NoArgs) { co_return Reply::ok("CHECK completed"); }

}  // namespace

CommandSpec checkCommand() {
  return makeCommand<NoArgs, parseNoArgs, executeCheck>("CHECK", stateBit(State::kSelected));
}

}  // namespace darius::imapd
