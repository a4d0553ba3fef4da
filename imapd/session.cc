#include "imapd/session.h"

#include <algorithm>
#include <asio/experimental/as_tuple.hpp>

#include "imapd/commands/commands.h"
#include "lib/proto/chars.h"

namespace darius::imapd {

using base::Code;
using base::Result;
using base::Status;

Session::Session(std::shared_ptr<net::Connection> conn, SessionEnv env, log::Context log)
    : conn_(std::move(conn)), env_(std::move(env)), log_(std::move(log)) {
  contexts_ = std::make_unique<search::SearchContexts>(settings().max_search_contexts);
  conn_->setTimeout(settings().login_timeout);
  conn_->setDeadline(settings().login_timeout);
}

auth::SaslContext Session::saslContext() const {
  auth::SaslContext ctx;
  ctx.users = env_.users;
  ctx.tls_active = conn_->tlsActive();
  ctx.allow_plaintext = settings().allow_plaintext_auth;
  if (ctx.tls_active) {
    net::TlsBinding b = conn_->channelBinding();
    ctx.binding = auth::ChannelBinding{std::move(b.type), std::move(b.data)};
  }
  if (env_.admins != nullptr) {
    // Runs on the blocking pool with the password check: it touches only immutable Admins.
    ctx.may_act_as = [admins = env_.admins](std::string_view authcid, std::string_view authzid) {
      return admins->mayLogInAs(authcid, authzid);
    };
  }
  return ctx;
}

bool Session::isAdmin() const {
  return env_.admins != nullptr && user_name_ &&
         env_.admins->isAdmin({user_name_->local, user_name_->domain});
}

bool Session::administers(std::string_view domain) const {
  return env_.admins != nullptr && user_name_ &&
         env_.admins->administers({user_name_->local, user_name_->domain}, domain);
}

void Session::loggedIn(std::string user, std::string_view method,
                       std::string_view authenticated_as) {
  if (env_.ns != nullptr) {
    auto parsed = env_.ns->parseUser(user);
    if (parsed.ok()) user_name_ = std::move(*parsed);
  }
  user_ = std::move(user);
  log_.user = user_;
  state_ = State::kAuthenticated;
  conn_->markAuthenticated();  // never closed to make room under a connection limit
  conn_->setDeadline(std::chrono::milliseconds(0));
  conn_->setTimeout(settings().idle_timeout);
  if (!authenticated_as.empty() && authenticated_as != user_) {
    log::notice(log_, "login ok ({}{}), authenticated as admin {}", method,
                conn_->tlsActive() ? ", TLS" : "", authenticated_as);
    return;
  }
  log::info(log_, "login ok ({}{})", method, conn_->tlsActive() ? ", TLS" : "");
}

asio::awaitable<void> Session::prepareMailboxes() {
  if (env_.store == nullptr || !user_name_) co_return;
  auto inbox = env_.ns->inboxOf(*user_name_);
  if (!inbox.ok()) co_return;
  Status s = co_await blocking([&] { return env_.store->ensureInbox(*inbox); });
  if (!s.isOk()) log::error(log_, "cannot create INBOX: {}", s.toString());
}

void Session::select(std::unique_ptr<SelectedMailbox> mailbox) {
  unselect();
  selected_ = std::move(mailbox);
  state_ = State::kSelected;
  if (env_.hub != nullptr) {
    if (!waker_) waker_ = std::make_shared<Waker>(conn_->executor());
    waker_->reset();
    env_.hub->start(conn_->executor());
    subscription_ = env_.hub->subscribe(selected_->entry().unique_id, waker_);
  }
}

void Session::unselect() {
  subscription_.reset();
  selected_.reset();
  saved_result_ = proto::SequenceSet();
  contexts_->clear();  // RFC 5267 §4.3: updates cease when the mailbox is no longer selected
  if (state_ == State::kSelected) state_ = State::kAuthenticated;
}

void Session::useCondstore() {
  bool first = !condstore_used_ && !isEnabled("CONDSTORE");
  condstore_used_ = true;
  if (!first || !selected_) return;
  // The modseq of what the client has been told, not the index's latest: a client that keeps
  // this value and resynchronises from it later must still be told of changes it has not
  // seen yet (RFC 7162 §3.1.2.1, §3.2.5.2).
  writeUntagged("OK [HIGHESTMODSEQ " + std::to_string(selected_->reportedModseq()) +
                "] Highest");
}

UpdateStyle Session::updateStyle() const {
  UpdateStyle u;
  u.qresync = isEnabled("QRESYNC");
  u.condstore = u.qresync || isEnabled("CONDSTORE") || condstore_used_;
  u.rev1 = !isEnabled("IMAP4REV2");
  return u;
}

asio::awaitable<void> Session::sendUpdates(bool allow_expunge) {
  if (!selected_) co_return;
  std::string out;
  Status s = selected_->refresh();
  if (s.isOk() && !contexts_->empty()) {
    co_await sendContextUpdates(allow_expunge, out);
    co_return;
  }
  if (s.isOk()) s = selected_->writeUpdates(allow_expunge, updateStyle(), out);
  if (!s.isOk()) {
    mailboxLost(s);
    co_return;
  }
  conn_->write(out);
}

// sendUpdates() with live search contexts (search_context.h): the changed messages are
// re-checked first (on the blocking pool when a program reads more than the index), then
// the REMOVEFROM of expunged results goes before the EXPUNGEs and the rest after the FETCHes.
asio::awaitable<void> Session::sendContextUpdates(bool allow_expunge, std::string& out) {
  SelectedMailbox& sel = *selected_;
  std::vector<uint32_t> checks = sel.pendingChecks();
  search::SearchScope scope;
  scope.mailbox = &sel.mailbox();
  scope.view = sel.uids();
  scope.is_recent = [&sel](uint32_t uid) { return sel.isRecent(uid); };
  scope.seen = sel.seenState();
  Status s;
  if ((contexts_->cost() == 0 || checks.empty()) && !contexts_->ages()) {
    s = contexts_->evaluate(scope, checks);
  } else {
    s = co_await blocking([&] { return contexts_->evaluate(scope, checks); });
  }
  if (s.isOk()) {
    auto msn_of = [&sel](uint32_t uid) { return sel.msnOf(uid); };
    UpdateHooks hooks;
    hooks.before_expunges = [&](const std::set<uint32_t>& gone, std::string& o) {
      o += contexts_->removeExpunged(gone, msn_of);
    };
    hooks.after_updates = [&](std::string& o) { o += contexts_->applyChecks(msn_of); };
    s = sel.writeUpdates(allow_expunge, updateStyle(), out, &hooks);
  }
  if (!s.isOk()) {
    mailboxLost(s);
    co_return;
  }
  conn_->write(out);
}

void Session::mailboxLost(const Status& s) {
  // The mailbox went away under us (deleted, renamed) or is damaged: RFC 9051 §7.1.5 lets
  // the server end the session; the client reselects.
  log::warning(log_, "selected mailbox: {}", s.toString());
  writeUntagged("BYE [UNAVAILABLE] Selected mailbox is no longer available");
  unselect();
  state_ = State::kLogout;
  bye_sent_ = true;
}

asio::awaitable<Status> Session::flushIfLarge() {
  if (conn_->pendingOutput() < settings().flush_threshold) co_return Status::ok();
  co_return co_await conn_->flush();
}

void Session::writeUntagged(std::string_view text) {
  conn_->write("* ");
  conn_->write(text);
  conn_->write("\r\n");
}

asio::awaitable<Status> Session::sendContinuation(std::string_view text) {
  conn_->write("+ ");
  conn_->write(text);
  conn_->write("\r\n");
  Status s = co_await conn_->flush();
  if (!s.isOk()) co_await readFailed(s);
  co_return s;
}

asio::awaitable<Result<std::string>> Session::readClientLine() {
  auto line = co_await conn_->readLine(false);
  if (!line.ok() && line.status().code() != Code::kTooBig) co_await readFailed(line.status());
  co_return line;
}

asio::awaitable<void> Session::failureDelay() {
  if (settings().auth_failure_delay.count() <= 0) co_return;
  asio::steady_timer timer(conn_->executor());
  timer.expires_after(settings().auth_failure_delay);
  co_await timer.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
}

bool Session::enable(std::string_view extension) {
  std::string upper = proto::asciiUpper(extension);
  if (isEnabled(upper)) return false;
  enabled_.push_back(std::move(upper));
  return true;
}

bool Session::isEnabled(std::string_view extension) const {
  std::string upper = proto::asciiUpper(extension);
  return std::find(enabled_.begin(), enabled_.end(), upper) != enabled_.end();
}

asio::awaitable<void> Session::run() {
  log::info(log_, "connected{}{}", conn_->tlsActive() ? " with " : "", conn_->tlsDescription());
  std::string greeting = "OK [CAPABILITY " + capabilityList(*this) + "] ";
  if (!settings().servername.empty()) greeting += settings().servername + " ";
  greeting += "Darius IMAP ready";
  writeUntagged(greeting);
  co_await flushOrEnd();
  while (state_ != State::kLogout) co_await serveOne();
  log::info(log_, "disconnected");
}

uint64_t Session::literalLimit() const {
  if (state_ == State::kNotAuthenticated) {
    return std::min(settings().max_literal_size, settings().max_literal_before_auth);
  }
  return settings().max_literal_size;
}

asio::awaitable<void> Session::serveOne() {
  auto line = co_await conn_->readLine(/*between_commands=*/true);
  if (!line.ok()) {
    if (line.status().code() == Code::kTooBig) {
      // RFC 9051 §7.1.3: tag the BAD when the line's tag is known, so a client waiting for
      // it does not hang; a line too long to hold even a whole tag gets an untagged BAD.
      std::string_view head = conn_->overlongHead();
      size_t end = 0;
      while (end < head.size() && proto::isTagChar(static_cast<unsigned char>(head[end]))) ++end;
      if (end > 0 && end < head.size() && head[end] == ' ') {
        writeTagged(std::string(head.substr(0, end)), Reply::bad("Line too long", "TOOBIG"));
      } else {
        writeUntagged("BAD [TOOBIG] Line too long");
      }
      noteBad();
      co_await flushOrEnd();
    } else {
      co_await readFailed(line.status());
    }
    co_return;
  }
  proto::CommandBuffer cmd;
  std::optional<proto::LiteralHeader> lit = cmd.addLine(*line);
  while (lit) {
    if (!co_await readLiteral(cmd, *lit, &lit)) co_return;
  }
  co_await execute(cmd.text());
}

asio::awaitable<bool> Session::readLiteral(proto::CommandBuffer& cmd, proto::LiteralHeader lit,
                                           std::optional<proto::LiteralHeader>* next) {
  const uint64_t limit = literalLimit();
  // All literals of a command count against the limit, and the lines between them against
  // the line limit once more, so neither many small literals nor many lines can grow it.
  bool too_big = lit.size > limit || lit.size > limit - std::min(limit, cmd.literalBytes()) ||
                 cmd.text().size() - cmd.literalBytes() > limit + settings().max_line_length;
  if (too_big) {
    writeTagged(cmd.replyTag(), Reply::bad("Literal too big", "TOOBIG"));
    if (!lit.synchronizing) {
      // The client is sending the bytes anyway; skipping them safely is impossible, since
      // a skipped literal could smuggle lines that would run as commands (RFC 7888 §4).
      writeUntagged("BYE [TOOBIG] Literal too big");
      log::notice(log_, "non-synchronizing literal of {} bytes over the limit of {}", lit.size,
                  limit);
      state_ = State::kLogout;
    }
    co_await flushOrEnd();
    co_return false;
  }
  if (lit.synchronizing) {
    // Refuse before the client uploads anything if the command cannot run anyway.
    ArgParser p(cmd.text());
    Lookup l = lookup(p);
    if (l.spec == nullptr || !l.spec->allowedIn(state_)) {
      writeTagged(l.tag,
                  l.spec == nullptr ? l.error : Reply::bad("Command not allowed in this state"));
      co_await flushOrEnd();
      co_return false;
    }
    if (!(co_await sendContinuation("Ready for literal data")).isOk()) co_return false;
  }
  auto bytes = co_await conn_->readBytes(lit.size);
  if (!bytes.ok()) {
    co_await readFailed(bytes.status());
    co_return false;
  }
  cmd.addLiteral(*bytes);
  auto line = co_await conn_->readLine(/*between_commands=*/false);
  if (!line.ok()) {
    if (line.status().code() == Code::kTooBig) {
      writeTagged(cmd.replyTag(), Reply::bad("Line too long", "TOOBIG"));
      co_await flushOrEnd();
    } else {
      co_await readFailed(line.status());
    }
    co_return false;
  }
  *next = cmd.addLine(*line);
  co_return true;
}

void Session::count(const CommandSpec* spec) const {
  std::atomic<uint64_t>* counter = nullptr;
  if (spec == nullptr) {
    counter = env_.unknown_command_counter;
  } else if (env_.command_counters != nullptr) {
    counter = (*env_.command_counters)[static_cast<size_t>(spec - env_.commands->all().data())];
  }
  if (counter != nullptr) counter->fetch_add(1, std::memory_order_relaxed);
}

Session::Lookup Session::lookup(ArgParser& p) const {
  Lookup l;
  auto tag = p.tag();
  if (!tag.ok()) {
    l.tag = "*";
    l.error = Reply::bad(tag.status().message());
    return l;
  }
  l.tag = std::string(*tag);
  Status s = p.space();
  if (!s.isOk()) {
    l.error = Reply::bad("Missing command name");
    return l;
  }
  auto name = p.atom();
  if (!name.ok()) {
    l.error = Reply::bad(name.status().message());
    return l;
  }
  l.has_name = true;
  l.spec = env_.commands->find(*name);
  if (l.spec == nullptr) l.error = Reply::bad("Unknown command");
  return l;
}

asio::awaitable<void> Session::execute(const std::string& text) {
  ArgParser p(text);
  Lookup l = lookup(p);
  if (l.has_name) count(l.spec);
  if (l.spec == nullptr) {
    writeTagged(l.tag, l.error);
    co_await flushOrEnd();
    co_return;
  }
  // RFC 9051 §6.1: a command the state does not allow is answered BAD.
  if (!l.spec->allowedIn(state_)) {
    writeTagged(l.tag, Reply::bad("Command not allowed in this state"));
    co_await flushOrEnd();
    co_return;
  }
  auto prepared = l.spec->parse(p);
  if (!prepared.ok()) {
    const Status& s = prepared.status();
    writeTagged(l.tag, Reply::bad(s.message(), s.code() == Code::kTooBig ? "TOOBIG" : ""));
    co_await flushOrEnd();
    co_return;
  }
  log::debug(log_, "command {} {}", l.tag, l.spec->name);
  Reply reply = co_await (*prepared)->execute(*this);
  if (reply.kind == Reply::Kind::kNone) co_return;
  // Untagged updates go out before the tagged reply (RFC 9051 §7.4, §7.5).
  if (state_ == State::kSelected) co_await sendUpdates(!reply.hold_expunges);
  if (bye_sent_) {
    co_await flushOrEnd();
    co_return;
  }
  writeTagged(l.tag, reply);
  co_await flushOrEnd();
  if (reply.then != nullptr && state_ != State::kLogout) co_await reply.then(*this);
}

void Session::writeTagged(std::string_view tag, const Reply& reply) {
  conn_->write(tag);
  conn_->write(" ");
  conn_->write(reply.format());
  conn_->write("\r\n");
  if (reply.kind == Reply::Kind::kBad) {
    noteBad();
  } else {
    consecutive_bad_ = 0;
  }
}

void Session::noteBad() {
  if (++consecutive_bad_ <= settings().max_bad_commands) return;
  writeUntagged("BYE Too many invalid commands");
  log::notice(log_, "closing after {} invalid commands in a row", consecutive_bad_);
  state_ = State::kLogout;
}

asio::awaitable<void> Session::readFailed(Status status) {
  state_ = State::kLogout;
  if (conn_->timedOut()) {
    writeUntagged("BYE Autologout; idle for too long");
    log::info(log_, "inactivity timeout");
  } else if (conn_->shuttingDown() && status.code() == Code::kTemporary) {
    writeUntagged("BYE [UNAVAILABLE] Server shutting down");
  } else if (conn_->evicted() && status.code() == Code::kTemporary) {
    // Closed to make room for a newer connection (net::ConnectionLimiter). RFC 9051 §7.1.5:
    // BYE, then close; UNAVAILABLE (RFC 5530) as for a refused connection.
    writeUntagged("BYE [UNAVAILABLE] Too many connections; closing this one, which has not "
                  "logged in");
    log::notice(log_, "closed before login: connection limit reached");
  } else {
    log::debug(log_, "connection lost: {}", status.toString());
    co_return;
  }
  (void)co_await conn_->flush();
}

asio::awaitable<void> Session::flushOrEnd() {
  Status s = co_await conn_->flush();
  if (!s.isOk()) {
    log::debug(log_, "write failed: {}", s.toString());
    state_ = State::kLogout;
  }
}

}  // namespace darius::imapd
