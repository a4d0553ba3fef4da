// AUTHENTICATE (RFC 9051 §6.2.2) with the initial response of SASL-IR (RFC 4959).
//
// Challenges go out as "+ <base64>", each client response is one base64 line. The exchange
// is cancelled by a "*" line and fails on malformed base64 (in the initial response too);
// both are BAD (§6.2.2, RFC 4959 §3). An initial response of "=" is an empty one. A mechanism
// that is not offered is NO; PLAIN/LOGIN without TLS, when the configuration refuses
// plaintext, is NO [PRIVACYREQUIRED]. A failed authentication is NO [AUTHENTICATIONFAILED]
// after auth_failure_delay. IMAP cannot carry data with the tagged OK, so SCRAM's final
// server message is sent as one more challenge, answered by an empty line (RFC 4422 §5).
// The channel binding of the TLS connection goes into the SASL context for -PLUS.
#include "auth/sasl.h"
#include "imapd/commands/commands.h"
#include "imapd/session.h"
#include "lib/base/base64.h"

namespace darius::imapd {
namespace {

using auth::SaslServer;
using base::Code;

struct AuthenticateArgs {
  std::string mechanism;                        // upper case
  std::optional<std::string> initial_response;  // decoded
};

base::Result<AuthenticateArgs> parseAuthenticate(ArgParser& p) {
  AuthenticateArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  auto mech = p.atom();
  if (!mech.ok()) return mech.status();
  a.mechanism = proto::asciiUpper(*mech);
  if (p.skipIf(' ')) {
    auto token = p.base64Token();
    if (!token.ok()) return token.status();
    if (*token == "=") {
      a.initial_response = std::string();
    } else {
      auto decoded = base::base64Decode(*token);
      if (!decoded.ok()) return base::Status::invalid("Invalid base64 in initial response");
      a.initial_response = std::move(*decoded);
    }
  }
  return a;
}

// The reply for a failed step; delays first when credentials were refused.
asio::awaitable<Reply> failed(Session& session, std::string mech, base::Status s) {
  log::Context ctx = session.logContext();
  switch (s.code()) {
    case Code::kInvalid:
      log::info(ctx, "AUTHENTICATE {}: malformed exchange: {}", mech, s.message());
      co_return Reply::bad("Malformed authentication exchange");
    case Code::kTooBig:
      co_return Reply::bad("Authentication response too long", "TOOBIG");
    case Code::kTemporary:
    case Code::kIoError:
    case Code::kCorruption:
      log::error(ctx, "AUTHENTICATE {}: {}", mech, s.toString());
      co_return Reply::no("Authentication temporarily unavailable", "UNAVAILABLE");
    default:
      log::notice(ctx, "AUTHENTICATE {} failed: {}", mech, s.message());
      co_await session.failureDelay();
      co_return Reply::no("Authentication failed", "AUTHENTICATIONFAILED");
  }
}

// Sends `challenge` and reads the client's answer: decoded bytes, or the reply to end with.
struct Answer {
  std::optional<std::string> bytes;
  Reply reply;
};
asio::awaitable<Answer> ask(Session& session, const std::string& challenge) {
  if (!(co_await session.sendContinuation(base::base64Encode(challenge))).isOk()) {
    co_return Answer{std::nullopt, Reply::none()};
  }
  auto line = co_await session.readClientLine();
  if (!line.ok()) {
    co_return Answer{std::nullopt, line.status().code() == Code::kTooBig
                                       ? Reply::bad("Authentication response too long", "TOOBIG")
                                       : Reply::none()};
  }
  if (*line == "*") co_return Answer{std::nullopt, Reply::bad("Authentication cancelled")};
  auto decoded = base::base64Decode(*line);
  if (!decoded.ok()) co_return Answer{std::nullopt, Reply::bad("Invalid base64 in response")};
  co_return Answer{std::move(*decoded), Reply::none()};
}

asio::awaitable<Reply> executeAuthenticate(Session& session, AuthenticateArgs args) {
  auto server = auth::makeSaslServer(args.mechanism, session.saslContext());
  if (!server.ok()) {
    const base::Status& s = server.status();
    if (s.code() == Code::kPermission) {
      co_return Reply::no("Connection offers no privacy", "PRIVACYREQUIRED");
    }
    if (s.code() == Code::kNotSupported) co_return Reply::no("Unsupported mechanism");
    co_return co_await failed(session, args.mechanism, s);
  }
  SaslServer& sasl = **server;
  // Steps may hash a password (PLAIN, LOGIN): they run off the I/O thread.
  SaslServer::Step step =
      co_await session.connection().offload([&] { return sasl.start(args.initial_response); });
  while (step.state == SaslServer::State::kContinue) {
    Answer a = co_await ask(session, step.challenge);
    if (!a.bytes) co_return a.reply;
    step = co_await session.connection().offload([&] { return sasl.next(*a.bytes); });
  }
  if (step.state == SaslServer::State::kFailure) {
    co_return co_await failed(session, args.mechanism, step.error);
  }
  if (!step.challenge.empty()) {
    // Additional data with success: one more round trip, whose answer must be empty.
    Answer a = co_await ask(session, step.challenge);
    if (!a.bytes) co_return a.reply;
    if (!a.bytes->empty()) co_return Reply::bad("Unexpected data after authentication");
  }
  session.loggedIn(sasl.authenticatedUser(), args.mechanism, sasl.authenticationId());
  co_await session.prepareMailboxes();
  co_return Reply::ok("Logged in", "CAPABILITY " + capabilityList(session));
}

}  // namespace

CommandSpec authenticateCommand() {
  return makeCommand<AuthenticateArgs, parseAuthenticate, executeAuthenticate>(
      "AUTHENTICATE", kNotAuthenticatedOnly, kExclusive);
}

}  // namespace darius::imapd
