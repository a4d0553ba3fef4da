// CAPABILITY (RFC 9051 §6.1.1, §7.2.2) and the capability list of a session.
//
// Before authentication the list tells the client how it may log in: STARTTLS while TLS is
// possible and not yet active (RFC 9051 §6.2.1), LOGINDISABLED while LOGIN would be refused
// for lack of TLS (§6.2.3), and AUTH=<mechanism> for each SASL mechanism the connection
// offers (§6.2.2). After authentication those three are gone. ENABLE does not change the
// list (RFC 5161 §3.1).
#include "auth/sasl.h"
#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {

std::string capabilityList(const Session& session) {
  // IMAP4rev1 too: clients that only speak RFC 3501 keep working, and RFC 9051 §2.1 lets a
  // server advertise both (IMAP4rev2 semantics then need ENABLE IMAP4rev2).
  std::string caps(kStaticCapabilities);
  caps += " APPENDLIMIT=" + std::to_string(session.settings().max_append_size);
  if (session.state() != State::kNotAuthenticated) return caps;
  const net::Connection& conn = session.connection();
  if (session.settings().starttls_available && conn.canStartTls()) caps += " STARTTLS";
  if (!conn.tlsActive() && !session.settings().allow_plaintext_auth) caps += " LOGINDISABLED";
  for (const std::string& mech : auth::offeredMechanisms(session.saslContext())) {
    caps += " AUTH=" + mech;
  }
  return caps;
}

namespace {

asio::awaitable<Reply> executeCapability(Session& session, NoArgs) {
  session.writeUntagged("CAPABILITY " + capabilityList(session));
  co_return Reply::ok("CAPABILITY completed");
}

}  // namespace

CommandSpec capabilityCommand() {
  return makeCommand<NoArgs, parseNoArgs, executeCapability>("CAPABILITY", kAnyState);
}

}  // namespace darius::imapd
