// LOGOUT (RFC 9051 §6.1.3): an untagged BYE, then the tagged OK, then the server closes.
#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

asio::awaitable<Reply> executeLogout(Session& session, NoArgs) {
  session.writeUntagged("BYE Logging out");
  session.logout();
  co_return Reply::ok("LOGOUT completed");
}

}  // namespace

CommandSpec logoutCommand() {
  return makeCommand<NoArgs, parseNoArgs, executeLogout>("LOGOUT", kAnyState, kExclusive);
}

}  // namespace darius::imapd
