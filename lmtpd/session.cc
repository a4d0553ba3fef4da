#include "lmtpd/session.h"

#include <algorithm>
#include <ctime>
#include <iterator>
#include <optional>
#include <utility>

#include "lib/base/ascii.h"
#include "lib/base/result.h"
#include "lmtpd/trace.h"

namespace darius::lmtpd {

namespace {

// Queued replies are flushed when no pipelined input is waiting, or once this much output has
// piled up (a client that pipelines without reading must not grow our buffer).
constexpr size_t kFlushThreshold = 16 * 1024;

constexpr uint8_t kFresh = 1, kGreeted = 2, kMail = 4, kRcpt = 8;
constexpr uint8_t kAny = kFresh | kGreeted | kMail | kRcpt;

// BDAT chunks are read in pieces of at most this much, so a chunk over the size limit is
// consumed (RFC 3030 §2 says the data must be read whatever the reply) without buffering it.
constexpr uint64_t kChunkPiece = 1 << 20;

// Runs f on the delivery pool and resumes on the caller's strand with its result; inline
// without a pool (unit tests).
template <typename F>
asio::awaitable<std::invoke_result_t<F&>> onDeliveryThread(asio::thread_pool* pool, F f) {
  using R = std::invoke_result_t<F&>;
  if (pool == nullptr) co_return f();
  std::optional<R> out = co_await asio::co_spawn(
      *pool, [&f]() -> asio::awaitable<std::optional<R>> { co_return f(); },
      asio::use_awaitable);
  co_return std::move(*out);
}

// The user a recipient is for: the local part up to a "+detail" (the subaddress, which the
// store will use to pick a folder), tried first as "user@domain" — sites with per-domain
// users — and then alone. A recipient without a domain (a bare local part, <Postmaster>) is
// one of `default_domain` (defaultdomain), as if the client had written it. With virtual
// domains, a domain the site hosts (it has users, UserStore::hostsDomain) is its own world
// (docs/design/naming.md): an unknown user of it is unknown, never the default domain's user
// of the same name, who would otherwise get mail meant for someone else. Any other domain
// (localhost, the host's names) still reaches the default domain's users. kNotFound if
// neither exists; other errors are the store's.
base::Result<std::string> resolveRecipient(auth::UserStore& users, const Mailbox& m,
                                           std::string_view default_domain,
                                           bool virtual_domains) {
  std::string base = m.local.substr(0, m.local.find('+'));
  if (base.empty()) return base::Status::notFound("empty local part");
  std::string_view domain = m.domain.empty() ? default_domain : std::string_view(m.domain);
  if (!domain.empty() && domain.front() != '[') {
    std::string qualified = base + "@";
    for (char c : domain)
      qualified.push_back(base::toLowerAsciiChar(c));  // domains are case-insensitive
    auto r = users.lookup(qualified);
    if (r.ok()) return qualified;
    if (!r.status().isNotFound()) return r.status();
    std::string_view lowered = std::string_view(qualified).substr(base.size() + 1);
    if (virtual_domains && lowered != default_domain) {
      DARIUS_ASSIGN_OR_RETURN(bool hosted, users.hostsDomain(lowered));
      if (hosted) return r.status();
    }
  }
  auto r = users.lookup(base);
  if (r.ok()) return base;
  return r.status();
}

}  // namespace

// The command table: every verb parseCommand() knows, the states in which it is in sequence
// (RFC 5321 §4.1.4 and §3.3, RFC 2033 §4), and its handler. run() consults nothing else.
const Session::Entry Session::kCommands[] = {
    {Verb::kLhlo, kAny, &Session::cmdLhlo},           // RFC 2033 §4.1: may be repeated
    {Verb::kMail, kGreeted, &Session::cmdMail},       // RFC 5321 §4.1.1.2
    {Verb::kRcpt, kMail | kRcpt, &Session::cmdRcpt},  // RFC 5321 §4.1.1.3
    {Verb::kData, kRcpt, &Session::cmdData},          // RFC 2033 §4.2: 503 without recipients
    // RFC 3030 §2: a BDAT's data follows it whatever the state, so the handler reads the
    // chunk first and checks the sequence itself.
    {Verb::kBdat, kAny, &Session::cmdBdat},
    {Verb::kRset, kAny, &Session::cmdRset},           // RFC 5321 §4.1.1.5
    {Verb::kNoop, kAny, &Session::cmdNoop},           // RFC 5321 §4.1.1.9
    {Verb::kQuit, kAny, &Session::cmdQuit},           // RFC 5321 §4.1.1.10
    {Verb::kVrfy, kAny, &Session::cmdVrfy},           // RFC 5321 §4.1.1.6, §3.5.3
    {Verb::kStartTls, kAny, &Session::cmdStartTls},   // RFC 3207 §4
    {Verb::kHelo, kAny, &Session::cmdHeloEhlo},       // RFC 2033 §4.1: never a 2xx
    {Verb::kEhlo, kAny, &Session::cmdHeloEhlo},
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

// RFC 3463 X.2.2, permanent or not as lmtp_over_quota_perm_failure says (RCPT and DATA alike).
void Session::replyMailboxFull(std::string_view path) {
  reply(std::string(env_.options->over_quota_permanent ? "552 5.2.2 <" : "452 4.2.2 <") +
        std::string(path) + "> Mailbox full");
}

void Session::resetTransaction() {
  sender_.clear();
  declared_size_ = 0;
  body_ = BodyType::kUnspecified;
  smtputf8_ = false;
  recipients_.clear();
  chunks_.reset();
  if (state_ != State::kFresh) state_ = State::kGreeted;
}

asio::awaitable<void> Session::run() {
  const std::string& host = env_.options->servername;
  conn_->setTimeout(env_.options->timeout);
  // RFC 2034 §3: the greeting carries no enhanced status code.
  reply("220 " + host + " LMTP Darius ready");
  for (;;) {
    // RFC 2920 §3.2: answer in order, write when the client has nothing more queued.
    if (conn_->bufferedInput() == 0 || conn_->pendingOutput() >= kFlushThreshold) {
      if (!(co_await conn_->flush()).isOk()) co_return;
    }
    auto line = co_await conn_->readLine(/*between_commands=*/true);
    if (!line.ok()) {
      if (line.status().code() == base::Code::kTooBig) {
        // RFC 5321 §4.2.2: 500 covers "command line too long".
        if (error("500 5.5.2 Line too long") == Next::kClose) break;
        continue;
      }
      if (conn_->timedOut()) {
        log::info(log_, "closing: idle timeout");
        reply("421 4.4.2 " + host + " Idle timeout, closing connection");
      } else if (conn_->shuttingDown()) {
        reply("421 4.3.2 " + host + " Server shutting down");
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
  if (cmd.error == SyntaxError::kUnknownCommand) {
    co_return error("500 5.5.2 " + cmd.error_text);
  }
  if (cmd.verb == Verb::kBdat && cmd.error != SyntaxError::kNone) {
    // Without a size, the chunk's end cannot be found: its bytes would be read as commands.
    log::info(log_, "closing: malformed BDAT");
    reply("501 5.5.4 " + cmd.error_text + "; closing connection");
    co_return Next::kClose;
  }
  const Entry* found = std::find_if(std::begin(kCommands), std::end(kCommands),
                                    [&](const Entry& e) { return e.verb == cmd.verb; });
  if (found == std::end(kCommands)) co_return error("500 5.5.2 Command unrecognized");
  const Entry& entry = *found;
  if ((entry.states & static_cast<uint8_t>(state_)) == 0) {
    co_return error("503 5.5.1 " + sequenceError(cmd.verb));
  }
  switch (cmd.error) {
    case SyntaxError::kNone:
      break;
    case SyntaxError::kUnknownCommand:  // handled above
    case SyntaxError::kBadArguments:
      co_return error("501 5.5.4 " + cmd.error_text);
    case SyntaxError::kBadAddress:
      // RFC 3463: X.1.7 is the sender's address syntax, X.1.3 a recipient's.
      co_return error(std::string(cmd.verb == Verb::kMail ? "501 5.1.7 " : "501 5.1.3 ") +
                      cmd.error_text);
    case SyntaxError::kUnknownParameter:
      co_return error("555 5.5.4 " + cmd.error_text);
  }
  co_return co_await (this->*entry.handler)(cmd);
}

std::string Session::sequenceError(Verb verb) const {
  if (state_ == State::kFresh) return "Send LHLO first";
  switch (verb) {
    case Verb::kMail:
      return "Sender already specified";
    case Verb::kData:
    case Verb::kBdat:
      return state_ == State::kMail ? "No valid recipients" : "Send MAIL first";
    default:
      return "Send MAIL first";
  }
}

Session::Next Session::error(std::string_view reply_line) {
  if (++errors_ >= kMaxErrors) {
    log::info(log_, "closing: too many errors");
    reply("421 4.7.0 " + env_.options->servername + " Too many errors, closing connection");
    return Next::kClose;
  }
  reply(reply_line);
  return Next::kContinue;
}

// RFC 2033 §4.1 (the semantics of EHLO, RFC 5321 §4.1.1.1): resets any transaction. The
// reply lists the extensions; RFC 2034 §3 exempts it from enhanced status codes.
asio::awaitable<Session::Next> Session::cmdLhlo(const Command& cmd) {
  state_ = State::kGreeted;
  resetTransaction();
  helo_ = cmd.text;
  reply("250-" + env_.options->servername);
  reply("250-PIPELINING");                          // RFC 2920
  reply("250-ENHANCEDSTATUSCODES");                 // RFC 2034
  reply("250-8BITMIME");                            // RFC 6152
  reply("250-CHUNKING");                            // RFC 3030
  reply("250-BINARYMIME");                          // RFC 3030
  reply("250-SMTPUTF8");                            // RFC 6531
  if (conn_->canStartTls()) reply("250-STARTTLS");  // RFC 3207; not once TLS is active
  reply("250 SIZE " + std::to_string(env_.options->max_message_size));  // RFC 1870
  co_return Next::kContinue;
}

asio::awaitable<Session::Next> Session::cmdMail(const Command& cmd) {
  // RFC 1870 §6: a declared size over the fixed maximum is refused at MAIL.
  if (cmd.size && *cmd.size > env_.options->max_message_size) {
    reply("552 5.3.4 Message size exceeds fixed maximum message size");
    co_return Next::kContinue;
  }
  // RFC 6531 §3.4: an internationalised address needs SMTPUTF8; RFC 6533 gives X.6.7.
  if (cmd.utf8 && !cmd.smtputf8) {
    reply("553 5.6.7 Non-ASCII address requires SMTPUTF8");
    co_return Next::kContinue;
  }
  sender_ = cmd.path;
  declared_size_ = cmd.size.value_or(0);
  body_ = cmd.body;
  smtputf8_ = cmd.smtputf8;
  state_ = State::kMail;
  reply("250 2.1.0 Sender <" + sender_ + "> OK");
  co_return Next::kContinue;
}

asio::awaitable<Session::Next> Session::cmdRcpt(const Command& cmd) {
  // RFC 5321 §4.1.2 wants a domain in every path but <Postmaster>; Cyrus and Dovecot take a
  // bare local part as a user of the default domain, and delivery agents written for them
  // send it, so it is accepted unless lmtp_strict_rcpt asks for the RFC's refusal.
  if (cmd.bare_local && env_.options->strict_rcpt) {
    co_return error("501 5.1.3 Bad address syntax");
  }
  // RFC 5321 §4.5.3.1.10: 452 for too many recipients; the client sends the rest later.
  if (recipients_.size() >= env_.options->max_recipients) {
    reply("452 4.5.3 Too many recipients");
    co_return Next::kContinue;
  }
  if (cmd.utf8 && !smtputf8_) {
    reply("553 5.6.7 Non-ASCII address requires SMTPUTF8");
    co_return Next::kContinue;
  }
  auto user = resolveRecipient(
      *env_.users, *cmd.mailbox,
      env_.deliverer != nullptr ? env_.deliverer->defaultDomain() : std::string_view(),
      env_.deliverer != nullptr && env_.deliverer->virtualDomains());
  std::optional<mailbox::MailboxName> inbox;
  if (user.ok() && env_.deliverer != nullptr) {
    auto in = env_.deliverer->inboxFor(*user);
    if (in.ok()) {
      inbox = std::move(*in);
    } else {
      // In the user store, but not a name that can own mailboxes: nothing could be delivered.
      user = base::Status::notFound("user name cannot own a mailbox");
    }
  }
  if (!user.ok()) {
    if (user.status().isNotFound()) {
      reply("550 5.1.1 <" + cmd.path + "> User unknown");
    } else {
      log::error(log_, "recipient lookup failed: {}", user.status().toString());
      reply("451 4.3.0 <" + cmd.path + "> Temporary failure looking up the recipient");
    }
    co_return Next::kContinue;
  }
  const std::string& local = cmd.mailbox->local;
  size_t plus = local.find('+');
  // RFC 5321 §4.3.2 (552/452 at RCPT), RFC 3463 X.2.2: a recipient whose quota is spent
  // (or cannot take RFC 1870's declared SIZE) is refused now, as Cyrus does. Only for INBOX:
  // "+detail" may go to a folder under another quota root; the delivery decides that.
  if (plus == std::string::npos && inbox &&
      env_.deliverer->certainlyOverQuota(*inbox, declared_size_)) {
    log::notice(log_, "over quota at RCPT: <{}> (declared size {})", cmd.path, declared_size_);
    replyMailboxFull(cmd.path);
    co_return Next::kContinue;
  }
  recipients_.push_back({cmd.path, std::move(*user),
                         plus == std::string::npos ? std::string() : local.substr(plus + 1)});
  state_ = State::kRcpt;
  reply("250 2.1.5 <" + cmd.path + "> Recipient OK");
  co_return Next::kContinue;
}

// RFC 5321 §4.1.1.4 and RFC 2033 §4.2: 354, the dot-stuffed lines up to ".", then one reply
// per accepted recipient.
asio::awaitable<Session::Next> Session::cmdData(const Command&) {
  if (chunks_) co_return error("503 5.5.1 DATA cannot follow BDAT in one transaction");
  if (body_ == BodyType::kBinaryMime) {
    // RFC 3030 §3: a BINARYMIME body can only be sent with BDAT.
    co_return error("503 5.5.1 BODY=BINARYMIME requires BDAT");
  }
  reply("354 Start mail input; end with <CRLF>.<CRLF>");
  if (!(co_await conn_->flush()).isOk()) co_return Next::kClose;
  std::unique_ptr<MessageData> message = newMessage();
  conn_->setLimits({.max_line = env_.options->max_data_line,
                    .max_literal = env_.options->max_message_size});
  Next next = Next::kContinue;
  for (;;) {
    auto line = co_await conn_->readLine();
    if (line.ok()) {
      if (message->addDataLine(*line)) break;
      continue;
    }
    if (line.status().code() == base::Code::kTooBig) {
      message->addOverlongLine();
      continue;
    }
    // The connection is gone (or timed out) before the final dot: nothing was staged, so
    // nothing is delivered and nothing is left behind (RFC 5321 §4.1.1.4).
    log::info(log_, "connection lost in DATA after {} octets: nothing delivered",
              message->size());
    if (conn_->timedOut()) {
      reply("421 4.4.2 " + env_.options->servername + " Timeout in DATA, closing connection");
    }
    next = Next::kClose;
    break;
  }
  conn_->setLimits({.max_line = kMaxCommandLine, .max_literal = env_.options->max_message_size});
  if (next == Next::kClose) co_return next;
  co_return co_await finishMessage(*message);
}

// RFC 3030 §2 (CHUNKING): BDAT size [LAST], then exactly `size` octets. In LMTP the reply to
// BDAT LAST is one reply per recipient (RFC 3030 §4.2 with RFC 2033 §4.2); every other BDAT
// gets one 250 once its chunk is read.
asio::awaitable<Session::Next> Session::cmdBdat(const Command& cmd) {
  const bool in_sequence = state_ == State::kRcpt;
  if (in_sequence && !chunks_) chunks_ = newMessage();
  for (uint64_t left = cmd.chunk_size; left > 0;) {
    // Pieces stay under the reader's literal limit (the message size limit) too. (Nested
    // std::min: GCC 12 miscompiles an initializer list inside a coroutine.)
    const uint64_t want = std::min(left, std::min(kChunkPiece, env_.options->max_message_size));
    auto piece = co_await conn_->readBytes(want);
    if (!piece.ok()) {
      log::info(log_, "connection lost in BDAT: nothing delivered");
      co_return Next::kClose;
    }
    left -= piece->size();
    if (in_sequence) chunks_->addChunk(*piece);
  }
  if (!in_sequence) co_return error("503 5.5.1 " + sequenceError(Verb::kBdat));
  if (cmd.last) {
    chunks_->finishChunks();
    std::unique_ptr<MessageData> message = std::move(chunks_);
    co_return co_await finishMessage(*message);
  }
  if (chunks_->problem() == MessageData::Problem::kTooBig) {
    // RFC 3030 §4.2: the transaction has failed; the client sends RSET or starts anew.
    reply("552 5.3.4 Message size exceeds fixed maximum message size");
    resetTransaction();
    co_return Next::kContinue;
  }
  reply("250 2.0.0 " + std::to_string(cmd.chunk_size) + " octets received");
  co_return Next::kContinue;
}

std::unique_ptr<MessageData> Session::newMessage() {
  TraceInfo t;
  t.sender = sender_;
  t.helo = helo_;
  t.peer_host = conn_->peer().host;
  t.servername = env_.options->servername;
  t.id = std::to_string(log_.session_id) + "." + std::to_string(transactions_ + 1);
  t.tls = conn_->tlsActive();
  t.smtputf8 = smtputf8_;
  if (recipients_.size() == 1) t.for_path = recipients_.front().path;
  t.when = std::time(nullptr);
  return std::make_unique<MessageData>(env_.options->max_message_size,
                                       body_ == BodyType::kBinaryMime, traceHeaders(t));
}

void Session::replyAll(std::string_view code, std::string_view text) {
  for (const Recipient& r : recipients_) {
    reply(std::string(code) + " <" + r.path + "> " + std::string(text));
  }
}

asio::awaitable<Session::Next> Session::finishMessage(MessageData& message) {
  ++transactions_;
  switch (message.problem()) {
    case MessageData::Problem::kNone:
      break;
    case MessageData::Problem::kTooBig:
      log::info(log_, "refused message of {} octets: over the size limit", message.size());
      replyAll("552 5.3.4", "Message size exceeds fixed maximum message size");
      resetTransaction();
      co_return Next::kContinue;
    case MessageData::Problem::kLineTooLong:
      log::info(log_, "refused message: a line over {} octets", env_.options->max_data_line);
      replyAll("554 5.6.0", "Message has a line longer than " +
                                std::to_string(env_.options->max_data_line) + " octets");
      resetTransaction();
      co_return Next::kContinue;
    case MessageData::Problem::kNul:
      log::info(log_, "refused message: NUL octets outside BODY=BINARYMIME");
      replyAll("554 5.6.0", "Message contains NUL octets (use BODY=BINARYMIME)");
      resetTransaction();
      co_return Next::kContinue;
  }
  std::vector<DeliveryTarget> targets;
  targets.reserve(recipients_.size());
  for (const Recipient& r : recipients_) targets.push_back({r.user, r.detail});
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  std::vector<DeliveryOutcome> outcomes;
  if (env_.deliverer != nullptr) {
    outcomes = co_await onDeliveryThread(env_.delivery_pool, [&] {
      return env_.deliverer->deliver(message.bytes(), targets, now);
    });
  } else {
    outcomes.assign(targets.size(),
                    DeliveryOutcome{DeliveryOutcome::Kind::kTemporary, "",
                                    base::Status::temporary("no mail store configured")});
  }
  for (size_t i = 0; i < recipients_.size(); ++i) {
    const DeliveryOutcome& o = outcomes[i];
    const std::string& path = recipients_[i].path;
    auto* counter = env_.deliveries[static_cast<size_t>(o.kind)];
    if (counter != nullptr) counter->fetch_add(1, std::memory_order_relaxed);
    switch (o.kind) {
      case DeliveryOutcome::Kind::kDelivered:
        reply("250 2.0.0 <" + path + "> Delivered");
        break;
      case DeliveryOutcome::Kind::kDuplicate:
        log::info(log_, "duplicate suppressed for {}", o.mailbox);
        reply("250 2.0.0 <" + path + "> Already delivered (duplicate suppressed)");
        break;
      case DeliveryOutcome::Kind::kNoMailbox:
        log::notice(log_, "no mailbox for <{}>: {}", path, o.status.toString());
        reply("550 5.1.1 <" + path + "> User unknown");
        break;
      case DeliveryOutcome::Kind::kOverQuota:
        // The store refused it under the root's lock (mailbox/store.h), so even racing
        // deliveries never take a root over its limit; only this recipient is refused.
        log::notice(log_, "over quota: <{}>: {}", path, o.status.toString());
        replyMailboxFull(path);
        break;
      case DeliveryOutcome::Kind::kTemporary:
        log::error(log_, "delivery to {} failed: {}", o.mailbox, o.status.toString());
        reply("451 4.3.0 <" + path + "> Temporary failure, try again later");
        break;
    }
  }
  resetTransaction();
  co_return Next::kContinue;
}

asio::awaitable<Session::Next> Session::cmdRset(const Command&) {
  resetTransaction();
  reply("250 2.0.0 OK");
  co_return Next::kContinue;
}

asio::awaitable<Session::Next> Session::cmdNoop(const Command&) {
  reply("250 2.0.0 OK");
  co_return Next::kContinue;
}

asio::awaitable<Session::Next> Session::cmdQuit(const Command&) {
  reply("221 2.0.0 " + env_.options->servername + " closing connection");
  co_return Next::kClose;
}

// RFC 5321 §3.5.3: 252 says "cannot verify, but will try to deliver", which reveals nothing
// about which users exist. Sites that do not want even that leave VRFY off (the default).
asio::awaitable<Session::Next> Session::cmdVrfy(const Command&) {
  if (!env_.options->vrfy_enabled) {
    reply("502 5.5.1 VRFY command is disabled");
  } else {
    reply("252 2.1.5 Cannot VRFY user, but will accept message and attempt delivery");
  }
  co_return Next::kContinue;
}

// RFC 3207 §4.
asio::awaitable<Session::Next> Session::cmdStartTls(const Command&) {
  if (conn_->tlsActive()) co_return error("503 5.5.1 TLS already active");
  if (!conn_->canStartTls()) {
    reply("502 5.5.1 STARTTLS not available: TLS is not configured");
    co_return Next::kContinue;
  }
  reply("220 2.0.0 Ready to start TLS");
  if (!(co_await conn_->flush()).isOk()) co_return Next::kClose;
  base::Status s = co_await conn_->startTls();
  if (!s.isOk()) {
    // kInvalid: plaintext was pipelined behind STARTTLS — possibly commands injected by a man
    // in the middle (CVE-2011-0411 class). Nothing more is answered; the link is dropped.
    log::notice(log_, "STARTTLS failed, dropping connection: {}", s.toString());
    conn_->close();
    co_return Next::kClose;
  }
  log::info(log_, "TLS started: {}", conn_->tlsDescription());
  // RFC 3207 §4.2: forget everything learnt before TLS, LHLO included.
  state_ = State::kFresh;
  resetTransaction();
  co_return Next::kContinue;
}

asio::awaitable<Session::Next> Session::cmdHeloEhlo(const Command&) {
  co_return error("500 5.5.1 This is an LMTP server: use LHLO (RFC 2033)");
}

}  // namespace darius::lmtpd
