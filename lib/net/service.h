// Service: what a protocol daemon (imapd, pop3d, lmtpd, the metrics endpoint) gives the
// network layer. The ServerHost accepts, applies connection limits and implicit TLS, and then
// hands each admitted connection to serve() on the connection's own strand.
//
// Ownership: services are owned by the composition root (server/) and outlive the host.
// Thread-safety: serve() runs concurrently for many connections; a Service's own state must be
// thread-safe (normally it is immutable after construction, plus atomics for metrics).
#pragma once

#include <asio.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "lib/net/connection.h"

namespace darius::net {

class Service {
 public:
  virtual ~Service() = default;

  // Short name used in logs and metrics labels ("imap", "imaps", "metrics").
  virtual std::string_view name() const = 0;

  // Runs one session to its end. The host closes the connection afterwards.
  virtual asio::awaitable<void> serve(std::shared_ptr<Connection> conn) = 0;

  // Best-effort reply to a connection refused by a connection limit, e.g.
  // "* BYE [UNAVAILABLE] Too many connections\r\n". Empty: just close.
  virtual std::string refusal() const { return {}; }

  // Whether the connection limits may close one of this service's connections that has not
  // authenticated (Connection::markAuthenticated) to make room for a newcomer (see
  // ConnectionLimiter). The session then says goodbye as its protocol does when a read fails
  // with Connection::evicted(). False keeps every connection until it ends on its own.
  virtual bool evictableBeforeLogin() const { return true; }

  // Framing limits and the timeout for the first read (before authentication).
  virtual ReaderLimits limits() const { return {}; }
  virtual std::chrono::milliseconds initialTimeout() const { return std::chrono::seconds(60); }
};

}  // namespace darius::net
