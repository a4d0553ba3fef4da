// STARTTLS (RFC 9051 §6.2.1, RFC 8314 §3.3 via RFC 2595): the tagged OK goes out in
// plaintext, then the TLS handshake starts. A client that pipelined anything behind STARTTLS
// loses the connection: those bytes were sent before TLS and could have been injected by an
// attacker (CVE-2011-0411). After the upgrade the session keeps its state (not
// authenticated) and the client must ask for CAPABILITY again; the list no longer has
// STARTTLS and may offer more mechanisms.
#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

asio::awaitable<void> upgrade(Session& session) {
  base::Status s = co_await session.connection().startTls();
  if (!s.isOk()) {
    // Nothing can be said to the client: it is in the middle of a TLS handshake.
    log::notice(session.logContext(), "STARTTLS failed: {}", s.toString());
    session.logout();
    co_return;
  }
  log::info(session.logContext(), "STARTTLS: {}", session.connection().tlsDescription());
}

asio::awaitable<Reply> executeStartTls(Session& session, NoArgs) {
  if (session.connection().tlsActive()) co_return Reply::bad("TLS is already active");
  if (!session.settings().starttls_available || !session.connection().canStartTls()) {
    co_return Reply::bad("STARTTLS is not available");
  }
  Reply r = Reply::ok("Begin TLS negotiation now");
  r.then = &upgrade;
  co_return r;
}

}  // namespace

CommandSpec starttlsCommand() {
  return makeCommand<NoArgs, parseNoArgs, executeStartTls>("STARTTLS", kNotAuthenticatedOnly,
                                                           kExclusive);
}

}  // namespace darius::imapd
