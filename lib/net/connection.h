// Connection: one client connection as seen by a protocol session: a TCP or unix stream
// socket, optionally wrapped in TLS (implicit on the TLS ports, or STARTTLS later), with
// bounded line/literal reads (LineReader), buffered writes, an inactivity timeout, a
// cooperative shutdown that interrupts only a session that waits for its next command, and
// its slot under the connection limits (ConnectionLimiter), which it may be asked to give up
// while it has not authenticated (eviction, see requestEviction): then it gets a bounded time
// to say goodbye, after which the socket is reset.
//
// Ownership: held by shared_ptr (the timeout timer's callback and the limiter's evictor keep
// weak_ptrs). The session coroutine owns the only strong reference while it runs. The
// connection holds its limiter Ticket until it is closed. All I/O goes through the socket's
// executor, a strand, so callbacks and the session never run at the same time.
// Thread-safety: call everything from the session coroutine (on the strand), except
// requestShutdown() and requestEviction(), which may be called from any thread.
#pragma once

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <asio/thread_pool.hpp>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "lib/base/result.h"
#include "lib/net/connection_limiter.h"
#include "lib/net/line_reader.h"
#include "lib/net/tls.h"

namespace darius::net {

using Socket = asio::generic::stream_protocol::socket;

// How long an evicted connection may take to say goodbye (see requestEviction); the server's
// is ServerHostOptions::eviction_goodbye.
inline constexpr std::chrono::milliseconds kDefaultEvictionGoodbye{2000};

struct PeerInfo {
  std::string host;      // "127.0.0.1", "::1", or "unix" for a unix socket
  std::string address;   // "127.0.0.1:41234", "[::1]:41234" or "unix"
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Socket socket, PeerInfo peer, ReaderLimits limits, TlsContextPtr tls);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Implicit TLS: the handshake before the greeting.
  asio::awaitable<base::Status> handshake();
  // STARTTLS/STLS: upgrade after the OK reply has been flushed. Refuses (kInvalid) when the
  // client pipelined plaintext behind the command; the session must then drop the connection.
  asio::awaitable<base::Status> startTls();

  // The next line. Errors: kTooBig (overlong line, skipped; the session may go on),
  // kIoError (peer closed or reset), kTemporary (inactivity timeout, server shutdown or
  // eviction; see timedOut() / shuttingDown() / evicted()). between_commands marks the wait
  // as interruptible by shutdown; an evicted connection also gets no further buffered line
  // there, while any read of it, between commands or not, fails.
  asio::awaitable<base::Result<std::string>> readLine(bool between_commands = false);
  // Returns once input is waiting (buffered, or the socket is readable), without reading it:
  // IMAP IDLE races this against change notifications, and cancelling a wait consumes
  // nothing. Errors as readLine (timeout, shutdown, closed).
  asio::awaitable<base::Status> waitReadable();
  // Exactly n bytes (a literal). kTooBig when over the literal limit (nothing is read).
  asio::awaitable<base::Result<std::string>> readBytes(uint64_t n);

  // Queues output; flush() sends it. Sessions flush at least at every command end.
  void write(std::string_view data) { out_.append(data.data(), data.size()); }
  size_t pendingOutput() const { return out_.size(); }
  asio::awaitable<base::Status> flush();

  // Inactivity limit for each read; zero disables it.
  void setTimeout(std::chrono::milliseconds t) { timeout_ = t; }
  // A hard limit on top of the inactivity timeout: reads and writes time out at `after` from
  // now however active the peer is (login_timeout: an unauthenticated client cannot keep a
  // connection with NOOPs). Zero or negative clears it.
  void setDeadline(std::chrono::milliseconds after);
  void setLimits(ReaderLimits limits);

  // Ends the session politely: on TLS, sends close_notify (and waits a moment for the peer's,
  // bounded by a short timer) so clients do not report a truncated stream; then closes.
  asio::awaitable<void> gracefulClose();
  void close();
  void requestShutdown();

  // The slot this connection holds under the connection limits, given back at close().
  void holdSlot(ConnectionLimiter::Ticket ticket) { ticket_.emplace(std::move(ticket)); }
  // The session authenticated (IMAP LOGIN/AUTHENTICATE, POP3 entering TRANSACTION): the
  // limiter never chooses it to make room from now on, and an eviction that is still on its
  // way, or has come but not yet closed the socket, is void (an authenticated session is
  // never closed for a limit).
  void markAuthenticated();
  // Asks the connection to go away to make room for a newcomer (the limiter's evictor). On the
  // strand, unless it has authenticated meanwhile: it is marked evicted and a wait for the
  // peer (a read, the TLS handshake) is cancelled, so the session ends promptly with its
  // goodbye (IMAP "* BYE", POP3 "-ERR"). Its slot has gone to the newcomer, so the socket
  // must not outlive the eviction for long: every wait from now on, and a write in progress
  // (a client that stopped reading), ends within `goodbye`, and then the socket is reset and
  // closed (an RST: what the client did not read is dropped). Work in progress without I/O,
  // such as a password check, is not interrupted: a login that completes wins.
  void requestEviction(std::chrono::milliseconds goodbye);
  bool evicted() const { return evicted_; }

  // Runs f (CPU-heavy or blocking work: password hashing) on the host's blocking pool and
  // resumes this session on its own strand with the result, so one slow login does not stall
  // the other sessions of an I/O thread. Without a pool (unit tests) f runs inline.
  template <typename F>
  asio::awaitable<std::invoke_result_t<F&>> offload(F f) {
    using R = std::invoke_result_t<F&>;
    if (!blocking_) co_return f();
    // optional<R>: R (a Result<T>) need not be default-constructible for co_spawn.
    std::optional<R> out = co_await asio::co_spawn(
        *blocking_, [&f]() -> asio::awaitable<std::optional<R>> { co_return f(); },
        asio::use_awaitable);
    co_return std::move(*out);
  }
  void setBlockingPool(asio::thread_pool* pool) { blocking_ = pool; }

  bool tlsActive() const { return tls_stream_.has_value(); }
  bool canStartTls() const { return tls_ctx_ != nullptr && !tls_stream_; }
  TlsBinding channelBinding() const;
  std::string tlsDescription() const;  // "TLSv1.3 TLS_AES_256_GCM_SHA384" or ""
  const PeerInfo& peer() const { return peer_; }
  bool timedOut() const { return timed_out_; }
  bool shuttingDown() const { return shutdown_.load(); }
  const asio::any_io_executor& executor() const { return executor_; }
  size_t bufferedInput() const { return reader_.buffered(); }
  // The start of the last line readLine() refused as too long (see LineReader).
  std::string_view overlongHead() const { return reader_.overlongHead(); }

 private:
  Socket& lowest() { return tls_stream_ ? tls_stream_->next_layer() : socket_; }
  asio::awaitable<base::Status> fill();
  // armTimer(): the I/O wait that follows times out after timeout_, or at deadline_ or
  // goodbye_deadline_ if earlier; disarmTimer(): it has ended. endWaitBy(): the wait in
  // progress ends at `when` at the latest. The timer itself is lazy (connection.cc).
  void armTimer();
  void disarmTimer();
  void endWaitBy(std::chrono::steady_clock::time_point when);
  void startTimer(std::chrono::steady_clock::time_point when);
  void onTimer();
  // Closes with a reset instead of a FIN behind unsent data (an evicted peer that stopped
  // reading would otherwise keep the kernel's socket alive).
  void abort();
  base::Status readError(const std::error_code& ec) const;

  asio::any_io_executor executor_;
  Socket socket_;
  std::optional<asio::ssl::stream<Socket>> tls_stream_;
  TlsContextPtr tls_ctx_;
  PeerInfo peer_;
  LineReader reader_;
  std::string out_;
  asio::steady_timer timer_;
  std::chrono::milliseconds timeout_{0};
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  // Set by an eviction: past it, the socket is reset (requestEviction). Kept apart from
  // deadline_ so that a session's setDeadline() cannot extend it.
  std::optional<std::chrono::steady_clock::time_point> goodbye_deadline_;
  // When the I/O in progress times out; none between waits, or when nothing bounds it.
  std::optional<std::chrono::steady_clock::time_point> wait_deadline_;
  // An I/O wait is in progress (between armTimer and disarmTimer).
  bool waiting_ = false;
  bool timer_pending_ = false;  // timer_ will fire at timer_expiry_
  std::chrono::steady_clock::time_point timer_expiry_;
  bool timed_out_ = false;
  bool waiting_between_commands_ = false;
  bool waiting_for_peer_ = false;  // a read or handshake is in progress (eviction cancels it)
  std::atomic<bool> shutdown_{false};
  bool authenticated_ = false;
  bool evicted_ = false;
  std::optional<ConnectionLimiter::Ticket> ticket_;
  bool closed_ = false;
  asio::thread_pool* blocking_ = nullptr;
};

}  // namespace darius::net
