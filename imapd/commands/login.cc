// LOGIN (RFC 9051 §6.2.3): user name and password as two astrings.
//
// Without TLS it is refused unless allow_plaintext_auth is set: the capability list then says
// LOGINDISABLED, and a client that tries anyway gets NO [PRIVACYREQUIRED] (RFC 9051 §7.1,
// RFC 5530 §3). A wrong password and an unknown user get the same NO [AUTHENTICATIONFAILED]
// after the same auth_failure_delay, so a client cannot tell them apart; a user store that
// cannot be read gets NO [UNAVAILABLE]. Success answers OK with the new capability list
// (RFC 9051 §6.2.3 allows the CAPABILITY response code there).
#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct LoginArgs {
  std::string user;
  std::string password;
};

base::Result<LoginArgs> parseLogin(ArgParser& p) {
  LoginArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  auto user = p.astring();
  if (!user.ok()) return user.status();
  DARIUS_RETURN_IF_ERROR(p.space());
  auto password = p.astring();
  if (!password.ok()) return password.status();
  a.user = std::move(*user);
  a.password = std::move(*password);
  return a;
}

asio::awaitable<Reply> executeLogin(Session& session, LoginArgs args) {
  if (!session.connection().tlsActive() && !session.settings().allow_plaintext_auth) {
    log::info(session.logContext(), "LOGIN refused without TLS");
    co_return Reply::no("Connection offers no privacy", "PRIVACYREQUIRED");
  }
  // yescrypt takes tens of milliseconds on purpose: off the I/O thread.
  auto ok = co_await session.connection().offload(
      [&] { return session.users().checkPassword(args.user, args.password); });
  if (!ok.ok()) {
    log::error(session.logContext(), "LOGIN: user store: {}", ok.status().toString());
    co_return Reply::no("Authentication temporarily unavailable", "UNAVAILABLE");
  }
  if (!*ok) {
    log::Context ctx = session.logContext();
    ctx.user = args.user;
    log::notice(ctx, "LOGIN failed");
    co_await session.failureDelay();
    co_return Reply::no("Authentication failed", "AUTHENTICATIONFAILED");
  }
  session.loggedIn(std::move(args.user), "LOGIN");
  co_await session.prepareMailboxes();
  co_return Reply::ok("Logged in", "CAPABILITY " + capabilityList(session));
}

}  // namespace

CommandSpec loginCommand() {
  return makeCommand<LoginArgs, parseLogin, executeLogin>("LOGIN", kNotAuthenticatedOnly,
                                                          kExclusive);
}

}  // namespace darius::imapd
