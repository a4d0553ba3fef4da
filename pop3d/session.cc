#include "pop3d/session.h"

#include <algorithm>
#include <asio/experimental/as_tuple.hpp>
#include <iterator>
#include <utility>

#include "lib/base/base64.h"

namespace darius::pop3d {

namespace {

constexpr auto kTuple = asio::experimental::as_tuple(asio::use_awaitable);

// Queued replies are flushed when no pipelined input is waiting, or once this much output has
// piled up (a client that pipelines without reading must not grow our buffer).
constexpr size_t kFlushThreshold = 16 * 1024;

// Lines inside an AUTH exchange: the largest SASL response auth/ accepts, base64-encoded.
constexpr size_t kMaxSaslLine = (auth::kMaxSaslResponseBytes + 2) / 3 * 4 + 16;

constexpr uint8_t kAuth = 1;   // State::kAuthorization
constexpr uint8_t kTrans = 2;  // State::kTransaction

// A status from the user store or a SASL step that is the server's problem, not the client's.
bool isServerSide(const base::Status& s) {
  return s.code() == base::Code::kTemporary || s.code() == base::Code::kIoError ||
         s.code() == base::Code::kCorruption;
}

// Restores the command line limit when an AUTH exchange ends, however it ends.
class SaslLineLimit {
 public:
  explicit SaslLineLimit(net::Connection& conn) : conn_(conn) {
    conn_.setLimits({.max_line = kMaxSaslLine, .max_literal = 0});
  }
  ~SaslLineLimit() { conn_.setLimits({.max_line = kMaxCommandLine, .max_literal = 0}); }
  SaslLineLimit(const SaslLineLimit&) = delete;
  SaslLineLimit& operator=(const SaslLineLimit&) = delete;

 private:
  net::Connection& conn_;
};

}  // namespace

// The command table: every verb parseCommand() knows, the states it is valid in (RFC 1939 §3
// and the "Restrictions" of each command), and its handler. run() consults nothing else.
const Session::Entry Session::kCommands[] = {
    {Verb::kUser, kAuth, &Session::cmdUser},           // RFC 1939 §7
    {Verb::kPass, kAuth, &Session::cmdPass},           // RFC 1939 §7
    {Verb::kAuth, kAuth, &Session::cmdAuth},           // RFC 5034 §4
    {Verb::kStls, kAuth, &Session::cmdStls},           // RFC 2595 §4
    {Verb::kCapa, kAuth | kTrans, &Session::cmdCapa},  // RFC 2449 §5
    // RFC 1939 §5 lists NOOP for TRANSACTION only. Answering it before login too is harmless
    // (it reveals nothing, and the login deadline still applies), so it works as a keepalive
    // in both states.
    {Verb::kNoop, kAuth | kTrans, &Session::cmdNoop},
    {Verb::kQuit, kAuth | kTrans, &Session::cmdQuit},  // RFC 1939 §4, §6
    // TRANSACTION (RFC 1939 §5, §7).
    {Verb::kStat, kTrans, &Session::cmdStat},
    {Verb::kList, kTrans, &Session::cmdList},
    {Verb::kRetr, kTrans, &Session::cmdRetr},
    {Verb::kDele, kTrans, &Session::cmdDele},
    {Verb::kRset, kTrans, &Session::cmdRset},
    {Verb::kTop, kTrans, &Session::cmdTop},     // RFC 1939 §7
    {Verb::kUidl, kTrans, &Session::cmdUidl},   // RFC 1939 §7
};

Session::Session(const SessionEnv& env, std::shared_ptr<net::Connection> conn, uint64_t id)
    : env_(env), conn_(std::move(conn)) {
  log_.service = std::string(env_.service);
  log_.session_id = id;
  log_.peer = conn_->peer().address;
}

void Session::reply(std::string_view line) {
  conn_->write(line);
  conn_->write("\r\n");
}

bool Session::plaintextAllowed() const {
  // RFC 2595 §2.3 and RFC 5034 §4: no cleartext passwords without TLS unless configured.
  return conn_->tlsActive() || env_.options->allow_plaintext_auth;
}

auth::SaslContext Session::saslContext() const {
  auth::SaslContext ctx;
  ctx.users = env_.users;
  ctx.tls_active = conn_->tlsActive();
  ctx.allow_plaintext = env_.options->allow_plaintext_auth;
  net::TlsBinding b = conn_->channelBinding();
  ctx.binding = {std::move(b.type), std::move(b.data)};
  if (env_.admins != nullptr) {
    ctx.may_act_as = [admins = env_.admins](std::string_view authcid, std::string_view authzid) {
      return admins->mayLogInAs(authcid, authzid);
    };
  }
  return ctx;
}

std::string_view Session::stateName() const {
  return state_ == State::kAuthorization ? "AUTHORIZATION" : "TRANSACTION";
}

asio::awaitable<void> Session::sleep(std::chrono::milliseconds d) {
  if (d.count() <= 0) co_return;
  asio::steady_timer timer(conn_->executor());
  timer.expires_after(d);
  co_await timer.async_wait(kTuple);
}

asio::awaitable<void> Session::run() {
  // The whole AUTHORIZATION state is bounded by login_timeout, not just each read.
  conn_->setTimeout(env_.options->login_timeout);
  conn_->setDeadline(env_.options->login_timeout);
  reply("+OK " + env_.options->servername + " Darius POP3 ready");
  for (;;) {
    // Pipelining (RFC 2449 §6.6): answer in order, write when the client has nothing queued.
    if (conn_->bufferedInput() == 0 || conn_->pendingOutput() >= kFlushThreshold) {
      if (!(co_await conn_->flush()).isOk()) co_return;
    }
    auto line = co_await conn_->readLine(/*between_commands=*/true);
    if (!line.ok()) {
      if (line.status().code() == base::Code::kTooBig) {
        pending_user_.reset();  // a line came between USER and PASS
        if (badCommand("-ERR Line too long") == Next::kClose) break;
        continue;
      }
      if (conn_->timedOut()) {
        const bool idle = state_ == State::kTransaction;
        log::info(log_, "closing: {} timeout", idle ? "idle" : "login");
        reply(idle ? "-ERR Idle timeout, closing connection"
                   : "-ERR Login timeout, closing connection");
      } else if (conn_->evicted()) {
        // Closed to make room for a newer connection (net::ConnectionLimiter). RFC 3206
        // SYS/TEMP: the server's condition, and a new connection may well succeed.
        log::notice(log_, "closed before login: connection limit reached");
        reply("-ERR [SYS/TEMP] Too many connections; closing this one, which has not logged in");
      } else if (conn_->shuttingDown()) {
        reply("-ERR [SYS/TEMP] Server shutting down");
      }
      break;
    }
    Command cmd = parseCommand(*line);
    env_.commands[static_cast<size_t>(cmd.verb)]->fetch_add(1, std::memory_order_relaxed);
    if ((co_await execute(cmd)) == Next::kClose) break;
  }
  (void)co_await conn_->flush();  // best effort: the session ends anyway
}

asio::awaitable<Session::Next> Session::execute(const Command& cmd) {
  // PASS is valid only right after USER: any other line forgets the name.
  user_for_pass_ = std::exchange(pending_user_, std::nullopt);
  if (cmd.error == SyntaxError::kUnknownCommand) co_return badCommand("-ERR " + cmd.error_text);
  const Entry* found = std::find_if(std::begin(kCommands), std::end(kCommands),
                                    [&](const Entry& e) { return e.verb == cmd.verb; });
  if (found == std::end(kCommands)) co_return badCommand("-ERR Unknown command");
  const Entry& entry = *found;
  if ((entry.states & static_cast<uint8_t>(state_)) == 0) {
    co_return badCommand("-ERR Command not valid in " + std::string(stateName()) + " state");
  }
  if (cmd.error != SyntaxError::kNone) co_return badCommand("-ERR " + cmd.error_text);
  co_return co_await (this->*entry.handler)(cmd);
}

Session::Next Session::badCommand(std::string_view text) {
  if (++bad_commands_ >= kMaxBadCommands) {
    log::info(log_, "closing: too many bad commands");
    reply("-ERR Too many bad commands, closing connection");
    return Next::kClose;
  }
  reply(text);
  return Next::kContinue;
}

// RFC 2449 §5: the capabilities valid now; those that depend on the connection (USER, SASL,
// STLS) are computed per call, so a CAPA after STLS reflects TLS (RFC 2595 §4).
asio::awaitable<Session::Next> Session::cmdCapa(const Command&) {
  reply("+OK Capability list follows");
  reply("TOP");
  if (plaintextAllowed()) reply("USER");
  reply("UIDL");
  auto mechanisms = auth::offeredMechanisms(saslContext());
  if (!mechanisms.empty()) {
    std::string line = "SASL";
    for (const auto& m : mechanisms) line += " " + m;
    reply(line);
  }
  reply("RESP-CODES");
  reply("AUTH-RESP-CODE");  // RFC 3206: failed logins carry [AUTH] or [SYS/*]
  reply("PIPELINING");
  if (state_ == State::kAuthorization && conn_->canStartTls()) reply("STLS");
  reply("EXPIRE NEVER");   // Darius never deletes messages a client left on the server
  reply("LOGIN-DELAY 0");  // nor makes anyone wait between logins
  reply("IMPLEMENTATION Darius");
  reply(".");
  co_return Next::kContinue;
}

asio::awaitable<Session::Next> Session::cmdUser(const Command& cmd) {
  if (!plaintextAllowed()) {
    // Refused at USER already, so the client never sends the password in the clear.
    co_return badCommand(conn_->canStartTls()
                             ? "-ERR [SYS/PERM] Plaintext authentication requires TLS: use STLS"
                             : "-ERR [SYS/PERM] Plaintext authentication is disabled");
  }
  // The same answer for every name: USER must not reveal which users exist.
  pending_user_ = cmd.text;
  reply("+OK Send the password");
  co_return Next::kContinue;
}

asio::awaitable<Session::Next> Session::cmdPass(const Command& cmd) {
  if (!plaintextAllowed()) {
    co_return badCommand("-ERR [SYS/PERM] Plaintext authentication requires TLS");
  }
  if (!user_for_pass_) co_return badCommand("-ERR PASS must follow a successful USER");
  const std::string user = std::move(*user_for_pass_);
  log_.user = user;
  // yescrypt takes tens of milliseconds on purpose: off the I/O thread.
  auto ok = co_await conn_->offload([&] { return env_.users->checkPassword(user, cmd.text); });
  if (!ok.ok()) co_return co_await authFailed(ok.status());
  if (!*ok) co_return co_await authFailed(base::Status::permission("wrong password or user"));
  co_return co_await authenticated(user, "USER/PASS");
}

// RFC 5034 §4. A bare AUTH (no mechanism) lists the mechanisms, as RFC 1734 servers did and
// some clients still probe.
asio::awaitable<Session::Next> Session::cmdAuth(const Command& cmd) {
  const auth::SaslContext ctx = saslContext();
  if (cmd.text.empty()) {
    reply("+OK Available mechanisms follow");
    for (const auto& m : auth::offeredMechanisms(ctx)) reply(m);
    reply(".");
    co_return Next::kContinue;
  }
  auto server = auth::makeSaslServer(cmd.text, ctx);
  if (!server.ok()) {
    switch (server.status().code()) {
      case base::Code::kPermission:
        reply("-ERR [SYS/PERM] Plaintext authentication requires TLS");
        co_return Next::kContinue;
      case base::Code::kNotSupported:
        reply("-ERR Unsupported authentication mechanism");
        co_return Next::kContinue;
      default:
        log::error(log_, "SASL {}: {}", cmd.text, server.status().toString());
        reply("-ERR [SYS/TEMP] Authentication is temporarily unavailable");
        co_return Next::kContinue;
    }
  }
  std::optional<std::string> initial;
  if (cmd.initial_response) {
    auto decoded = decodeInitialResponse(*cmd.initial_response);
    if (!decoded.ok()) {  // RFC 5034 §4: MUST reject what does not decode
      reply("-ERR Invalid base64 data");
      co_return Next::kContinue;
    }
    initial = std::move(*decoded);
  }
  co_return co_await saslExchange(**server, cmd.text, std::move(initial));
}

asio::awaitable<std::optional<std::string>> Session::challenge(std::string_view data, Next* next) {
  // RFC 5034 §4: "+" SP base64; an empty challenge is "+" SP alone.
  reply("+ " + base::base64Encode(data));
  *next = Next::kClose;
  if (!(co_await conn_->flush()).isOk()) co_return std::nullopt;
  auto line = co_await conn_->readLine();
  if (!line.ok()) {
    if (line.status().code() != base::Code::kTooBig) co_return std::nullopt;
    *next = Next::kContinue;
    reply("-ERR Authentication response too long");
    co_return std::nullopt;
  }
  *next = Next::kContinue;
  auto response = parseSaslResponse(*line);
  if (!response.ok()) {  // RFC 5034 §4: MUST reject a response that does not decode
    reply("-ERR Invalid base64 data");
    co_return std::nullopt;
  }
  if (!*response) {  // "*": the client cancels, which RFC 5034 §4 answers with -ERR
    reply("-ERR Authentication cancelled");
    co_return std::nullopt;
  }
  co_return std::move(**response);
}

asio::awaitable<Session::Next> Session::saslExchange(auth::SaslServer& server,
                                                     std::string_view mechanism,
                                                     std::optional<std::string> initial) {
  SaslLineLimit limit(*conn_);
  // Steps may hash a password (PLAIN, LOGIN): they run off the I/O thread.
  auto step = co_await conn_->offload([&] {
    return server.start(initial ? std::optional<std::string_view>(*initial) : std::nullopt);
  });
  while (step.state == auth::SaslServer::State::kContinue) {
    Next next;
    auto response = co_await challenge(step.challenge, &next);
    if (!response) co_return next;
    step = co_await conn_->offload([&] { return server.next(*response); });
  }
  if (step.state != auth::SaslServer::State::kSuccess) co_return co_await authFailed(step.error);
  if (!step.challenge.empty()) {
    // A mechanism's additional data with success (SCRAM's server signature) cannot ride on
    // +OK in POP3 (RFC 5034 §4), so it goes out as one more challenge, which the client
    // answers with an empty response (RFC 4422 §3.6).
    Next next;
    auto response = co_await challenge(step.challenge, &next);
    if (!response) co_return next;
    if (!response->empty()) {
      co_return co_await authFailed(base::Status::invalid("data after the final challenge"));
    }
  }
  co_return co_await authenticated(server.authenticatedUser(), "AUTH " + std::string(mechanism));
}

asio::awaitable<Session::Next> Session::authenticated(const std::string& user,
                                                      std::string_view how) {
  log_.user = user;
  log::info(log_, "authenticated ({}, {})", how, conn_->tlsActive() ? "TLS" : "plaintext");
  if (env_.store == nullptr || env_.ns == nullptr) {
    reply("-ERR [SYS/TEMP] Maildrop not available");
    co_return Next::kClose;
  }
  auto parsed = env_.ns->parseUser(user);
  auto inbox = parsed.ok() ? env_.ns->inboxOf(*parsed)
                           : base::Result<mailbox::MailboxName>(parsed.status());
  if (!inbox.ok()) {
    log::error(log_, "no maildrop for this user: {}", inbox.status().toString());
    reply("-ERR [SYS/PERM] This user has no maildrop");
    co_return Next::kContinue;
  }
  // RFC 1939 §4: acquire the maildrop lock, then TRANSACTION.
  auto drop = co_await conn_->offload([&] {
    return Maildrop::open(*env_.store, *inbox, env_.options->lock_dir,
                          env_.options->uidl_format);
  });
  if (!drop.ok()) {
    if (drop.status().code() == base::Code::kLocked) {
      // RFC 2449 §8.1.1: the credentials were right, the maildrop is busy. The session stays
      // in AUTHORIZATION; the client may try again later.
      log::notice(log_, "maildrop in use by another session");
      reply("-ERR [IN-USE] Maildrop is locked by another POP3 session");
      co_return Next::kContinue;
    }
    log::error(log_, "opening the maildrop failed: {}", drop.status().toString());
    reply("-ERR [SYS/TEMP] Maildrop not available, try again later");
    co_return Next::kContinue;
  }
  if (((*drop)->rights() & mailbox::right::kRead) == 0) {
    // RFC 4314 §4: reading the INBOX needs "r", which its owner may have taken away. The
    // lock goes with the Maildrop; the session stays in AUTHORIZATION.
    log::notice(log_, "maildrop refused: no read right on the INBOX");
    reply("-ERR [SYS/PERM] Permission denied: no read right on the maildrop");
    co_return Next::kContinue;
  }
  maildrop_ = std::move(*drop);
  state_ = State::kTransaction;
  // Authenticated: the login deadline no longer applies, the idle timeout does, and the
  // session is never closed to make room under a connection limit. Not before TRANSACTION:
  // a session whose maildrop is locked ([IN-USE]) is still in AUTHORIZATION, under the login
  // deadline, and may be closed like any other that has not logged in.
  conn_->markAuthenticated();
  conn_->setDeadline(std::chrono::milliseconds(0));
  conn_->setTimeout(env_.options->idle_timeout);
  reply("+OK Maildrop locked and ready, " + std::to_string(maildrop_->liveCount()) +
        " messages (" + std::to_string(maildrop_->liveSize()) + " octets)");
  co_return Next::kContinue;
}

asio::awaitable<Session::Next> Session::authFailed(const base::Status& why) {
  if (isServerSide(why)) {
    log::error(log_, "authentication unavailable: {}", why.toString());
    reply("-ERR [SYS/TEMP] Authentication is temporarily unavailable");
    co_return Next::kContinue;
  }
  ++auth_failures_;
  log::notice(log_, "authentication failed: {}", why.toString());
  // The same text and the same delay for an unknown user and a wrong password.
  (void)co_await conn_->flush();  // earlier replies go out before the delay
  co_await sleep(env_.options->auth_failure_delay);
  reply("-ERR [AUTH] Authentication failed");
  if (auth_failures_ >= kMaxAuthFailures) {
    log::notice(log_, "closing: too many authentication failures");
    co_return Next::kClose;
  }
  co_return Next::kContinue;
}

// RFC 2595 §4.
asio::awaitable<Session::Next> Session::cmdStls(const Command&) {
  if (conn_->tlsActive()) {
    reply("-ERR Command not permitted when TLS active");
    co_return Next::kContinue;
  }
  if (!conn_->canStartTls()) {
    reply("-ERR STLS not available: TLS is not configured");
    co_return Next::kContinue;
  }
  reply("+OK Begin TLS negotiation");
  if (!(co_await conn_->flush()).isOk()) co_return Next::kClose;
  base::Status s = co_await conn_->startTls();
  if (!s.isOk()) {
    // kInvalid: the client pipelined plaintext behind STLS, which could be a command injected
    // by a man in the middle (CVE-2011-0411 class). Nothing is answered; the link is dropped.
    log::notice(log_, "STLS failed, dropping connection: {}", s.toString());
    conn_->close();
    co_return Next::kClose;
  }
  log::info(log_, "TLS started: {}", conn_->tlsDescription());
  co_return Next::kContinue;
}

asio::awaitable<Session::Next> Session::cmdNoop(const Command&) {
  reply("+OK");
  co_return Next::kContinue;
}

asio::awaitable<Session::Next> Session::cmdQuit(const Command&) {
  if (state_ == State::kTransaction) {
    // RFC 1939 §6: the UPDATE state — remove the messages marked as deleted.
    auto removed = co_await conn_->offload([&] { return maildrop_->commit(); });
    if (!removed.ok()) {
      log::error(log_, "expunge at QUIT failed: {}", removed.status().toString());
      reply("-ERR [SYS/TEMP] Some deleted messages were not removed");
      co_return Next::kClose;
    }
    if (*removed > 0) log::info(log_, "expunged {} message(s) at QUIT", *removed);
    size_t left = maildrop_->liveCount();
    // Release the maildrop lock before the +OK: a client that reconnects the moment it reads
    // the reply must not meet its own departing session as [IN-USE].
    maildrop_.reset();
    reply("+OK " + env_.options->servername + " Darius POP3 server signing off (" +
          std::to_string(left) + " messages left)");
    co_return Next::kClose;
  }
  // In AUTHORIZATION there is nothing to update (RFC 1939 §4).
  reply("+OK " + env_.options->servername + " Darius POP3 server signing off");
  co_return Next::kClose;
}

}  // namespace darius::pop3d
