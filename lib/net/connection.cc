#include "lib/net/connection.h"

#include "lib/net/as_tuple_token.h"

namespace darius::net {

using base::Result;
using base::Status;

namespace {
constexpr size_t kReadChunk = 16 * 1024;
constexpr const char* kEvicted = "closed to make room for a newer connection (connection limit)";
}  // namespace

Connection::Connection(Socket socket, PeerInfo peer, ReaderLimits limits, TlsContextPtr tls)
    : executor_(socket.get_executor()),
      socket_(std::move(socket)),
      tls_ctx_(std::move(tls)),
      peer_(std::move(peer)),
      reader_(limits),
      timer_(executor_) {}

Connection::~Connection() { close(); }

void Connection::setLimits(ReaderLimits limits) {
  // The reader keeps what it has buffered; only the limits change.
  LineReader next(limits);
  // An unconsumed tail (pipelined commands) must survive the change.
  auto rest = reader_.takeBytes(reader_.buffered());
  if (rest.ok() && *rest) next.feed(**rest);
  reader_ = std::move(next);
}

void Connection::setDeadline(std::chrono::milliseconds after) {
  if (after.count() <= 0) {
    deadline_.reset();
  } else {
    deadline_ = std::chrono::steady_clock::now() + after;
  }
}

// The timer is lazy: a wait only records its deadline, and the timer, once started, runs to
// its expiry and then checks. Re-arming an Asio timer per wait cancels the pending wait (a
// completion to post) and, when it was the earliest, reprograms the reactor's timerfd and
// interrupts the thread in epoll_wait: a few system calls and a thread wake-up per LMTP
// command. Now the timer is started once per timeout period, or when a wait needs an
// earlier wake-up than the one pending (a deadline, a shorter timeout, an eviction).
void Connection::armTimer() {
  waiting_ = true;
  wait_deadline_.reset();
  std::optional<std::chrono::steady_clock::time_point> when;
  if (timeout_.count() > 0) when = std::chrono::steady_clock::now() + timeout_;
  for (const auto& d : {deadline_, goodbye_deadline_}) {
    if (d && (!when || *d < *when)) when = d;
  }
  if (when) endWaitBy(*when);
}

void Connection::endWaitBy(std::chrono::steady_clock::time_point when) {
  if (wait_deadline_ && *wait_deadline_ <= when) return;
  wait_deadline_ = when;
  if (timer_pending_ && timer_expiry_ <= when) return;  // it wakes up early enough to check
  startTimer(when);
}

void Connection::startTimer(std::chrono::steady_clock::time_point when) {
  timer_pending_ = true;
  timer_expiry_ = when;
  timer_.expires_at(when);  // cancels a pending wait: its handler sees operation_aborted
  std::weak_ptr<Connection> weak = weak_from_this();
  timer_.async_wait([weak](const std::error_code& ec) {
    if (ec) return;  // replaced by an earlier expiry, or the connection closed
    if (auto self = weak.lock()) self->onTimer();
  });
}

void Connection::onTimer() {
  timer_pending_ = false;
  if (!wait_deadline_) return;  // nothing waits now: the next wait starts the timer again
  const auto now = std::chrono::steady_clock::now();
  if (now < *wait_deadline_) {
    startTimer(*wait_deadline_);  // the wait began after the timer was started
    return;
  }
  if (goodbye_deadline_ && now >= *goodbye_deadline_) {
    // Evicted, and the goodbye (or the reply before it) is still not through: the client
    // does not read. Its slot is already the newcomer's; the socket goes too.
    abort();
    return;
  }
  timed_out_ = true;
  std::error_code ignore;
  lowest().cancel(ignore);
}

void Connection::disarmTimer() {
  waiting_ = false;
  wait_deadline_.reset();
}

Status Connection::readError(const std::error_code& ec) const {
  if (timed_out_) return Status::temporary("inactivity timeout");
  if (evicted_ && ec == asio::error::operation_aborted) return Status::temporary(kEvicted);
  if (shutdown_.load() && ec == asio::error::operation_aborted) {
    return Status::temporary("server shutting down");
  }
  if (ec == asio::error::eof || ec == asio::ssl::error::stream_truncated) {
    return Status::ioError("connection closed by peer");
  }
  return Status::ioError("read: " + ec.message());
}

asio::awaitable<Status> Connection::fill() {
  if (closed_) co_return Status::ioError("connection closed");
  if (evicted_) co_return Status::temporary(kEvicted);
  armTimer();
  waiting_for_peer_ = true;
  std::error_code ec;
  // Wait until the socket is readable before taking a read buffer: a session waiting for its
  // next command (most of them, most of the time) then holds no buffer at all, which is what
  // lets 10,000 idle sessions fit in a few tens of megabytes. Not under TLS: Asio's TLS
  // stream may already hold bytes it read from the socket (a client's first command in the
  // same packet as its handshake Finished), which a socket wait would never see; a TLS stream
  // keeps ~34 KiB of its own buffers anyway.
  if (!tls_stream_) {
    std::tie(ec) = co_await lowest().async_wait(Socket::wait_read, kAsTuple);
  }
  size_t n = 0;
  std::unique_ptr<char[]> buf;
  if (!ec) {
    buf.reset(new char[kReadChunk]);
    if (tls_stream_) {
      std::tie(ec, n) =
          co_await tls_stream_->async_read_some(asio::buffer(buf.get(), kReadChunk), kAsTuple);
    } else {
      std::tie(ec, n) =
          co_await socket_.async_read_some(asio::buffer(buf.get(), kReadChunk), kAsTuple);
    }
  }
  disarmTimer();
  waiting_for_peer_ = false;
  if (ec) co_return readError(ec);
  reader_.feed(std::string_view(buf.get(), n));
  co_return Status::ok();
}

asio::awaitable<Result<std::string>> Connection::readLine(bool between_commands) {
  for (;;) {
    // An evicted session runs no further command, even one the client already sent.
    if (between_commands && evicted_) co_return Status::temporary(kEvicted);
    auto line = reader_.takeLine();
    if (!line.ok()) co_return line.status();
    if (*line) co_return std::move(**line);
    if (between_commands && shutdown_.load()) co_return Status::temporary("server shutting down");
    waiting_between_commands_ = between_commands;
    Status s = co_await fill();
    waiting_between_commands_ = false;
    if (!s.isOk()) co_return s;
  }
}

asio::awaitable<Status> Connection::waitReadable() {
  if (closed_) co_return Status::ioError("connection closed");
  if (reader_.buffered() > 0) co_return Status::ok();
  if (shutdown_.load()) co_return Status::temporary("server shutting down");
  if (evicted_) co_return Status::temporary(kEvicted);
  waiting_between_commands_ = true;
  if (tls_stream_) {
    // The TLS stream may hold undecrypted bytes that a socket wait would not see, so read
    // for real. Cancelling a TLS read consumes nothing: OpenSSL is only fed on completion.
    Status s = co_await fill();
    waiting_between_commands_ = false;
    co_return s;
  }
  armTimer();
  waiting_for_peer_ = true;
  auto [ec] = co_await lowest().async_wait(Socket::wait_read, kAsTuple);
  waiting_for_peer_ = false;
  disarmTimer();
  waiting_between_commands_ = false;
  if (ec) co_return readError(ec);
  co_return Status::ok();
}

asio::awaitable<Result<std::string>> Connection::readBytes(uint64_t n) {
  if (n > reader_.limits().max_literal) {
    co_return Status::tooBig("literal of " + std::to_string(n) + " bytes is over the limit of " +
                             std::to_string(reader_.limits().max_literal));
  }
  for (;;) {
    auto bytes = reader_.takeBytes(n);
    if (!bytes.ok()) co_return bytes.status();
    if (*bytes) co_return std::move(**bytes);
    Status s = co_await fill();
    if (!s.isOk()) co_return s;
  }
}

asio::awaitable<Status> Connection::flush() {
  if (out_.empty()) co_return Status::ok();
  if (closed_) co_return Status::ioError("connection closed");
  std::string data;
  data.swap(out_);
  // Writes are bounded by the same inactivity timeout: a client that stops reading must not
  // pin the session forever.
  armTimer();
  std::error_code ec;
  if (tls_stream_) {
    std::tie(ec, std::ignore) =
        co_await asio::async_write(*tls_stream_, asio::buffer(data), kAsTuple);
  } else {
    std::tie(ec, std::ignore) = co_await asio::async_write(socket_, asio::buffer(data), kAsTuple);
  }
  disarmTimer();
  if (ec) co_return readError(ec).withContext("write");
  co_return Status::ok();
}

asio::awaitable<Status> Connection::handshake() {
  if (!tls_ctx_) co_return Status::notSupported("no TLS context");
  tls_stream_.emplace(std::move(socket_), *tls_ctx_);
  armTimer();
  waiting_for_peer_ = true;
  auto [ec] = co_await tls_stream_->async_handshake(asio::ssl::stream_base::server, kAsTuple);
  waiting_for_peer_ = false;
  disarmTimer();
  if (ec && evicted_) co_return Status::temporary(kEvicted);
  if (ec) co_return Status::ioError("TLS handshake: " + ec.message());
  co_return Status::ok();
}

asio::awaitable<Status> Connection::startTls() {
  if (!canStartTls()) co_return Status::notSupported("TLS not available or already active");
  if (reader_.buffered() != 0) {
    co_return Status::invalid("plaintext pipelined after STARTTLS");
  }
  co_return co_await handshake();
}

TlsBinding Connection::channelBinding() const {
  if (!tls_stream_) return {};
  return net::channelBinding(const_cast<asio::ssl::stream<Socket>&>(*tls_stream_).native_handle());
}

std::string Connection::tlsDescription() const {
  if (!tls_stream_) return {};
  SSL* ssl = const_cast<asio::ssl::stream<Socket>&>(*tls_stream_).native_handle();
  return std::string(SSL_get_version(ssl)) + " " + SSL_get_cipher_name(ssl);
}

asio::awaitable<void> Connection::gracefulClose() {
  if (tls_stream_ && !closed_ && !timed_out_) {
    auto saved = timeout_;
    timeout_ = std::chrono::milliseconds(1000);
    armTimer();
    auto [ec] = co_await tls_stream_->async_shutdown(kAsTuple);
    (void)ec;  // eof, truncation or a timeout: the connection is going away either way
    disarmTimer();
    timeout_ = saved;
  }
  close();
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  std::error_code ignore;
  timer_.cancel();
  lowest().shutdown(asio::socket_base::shutdown_both, ignore);
  lowest().close(ignore);
  ticket_.reset();  // the slot is free once the socket is
}

void Connection::abort() {
  if (closed_) return;
  std::error_code ignore;
  // Linger 0: close() sends an RST and drops the unsent output at once, rather than leaving
  // an orphaned socket with a FIN queued behind data the client will never read.
  lowest().set_option(asio::socket_base::linger(true, 0), ignore);
  close();  // the wait in progress completes with operation_aborted
}

void Connection::requestShutdown() {
  shutdown_.store(true);
  std::weak_ptr<Connection> weak = weak_from_this();
  asio::post(executor_, [weak] {
    auto self = weak.lock();
    if (self && self->waiting_between_commands_ && !self->closed_) {
      std::error_code ignore;
      self->lowest().cancel(ignore);
    }
  });
}

void Connection::markAuthenticated() {
  if (authenticated_) return;
  authenticated_ = true;
  // An eviction decided before the login completed is void: the session stays (the limiter
  // counts it again, see connection_limiter.h), with no goodbye deadline.
  evicted_ = false;
  goodbye_deadline_.reset();
  if (ticket_) ticket_->markAuthenticated();
}

void Connection::requestEviction(std::chrono::milliseconds goodbye) {
  std::weak_ptr<Connection> weak = weak_from_this();
  asio::post(executor_, [weak, goodbye] {
    auto self = weak.lock();
    if (!self || self->closed_ || self->authenticated_) return;
    self->evicted_ = true;
    self->goodbye_deadline_ = std::chrono::steady_clock::now() + goodbye;
    if (self->waiting_for_peer_) {
      std::error_code ignore;
      self->lowest().cancel(ignore);
    } else if (self->waiting_) {
      // A write in progress (or the TLS close_notify): a client that stops reading blocks
      // it for as long as it likes, so it gets only the goodbye's time (onTimer).
      self->endWaitBy(*self->goodbye_deadline_);
    }
  });
}

}  // namespace darius::net
