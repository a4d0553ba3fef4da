// ServerHost: the service skeleton of dariusd: one io_context run by a pool of threads, the
// listeners of every configured service, connection limits, and the signals: SIGTERM/SIGINT
// stop accepting, interrupt sessions that wait for a command, let commands in flight finish
// for at most shutdown_timeout, then stop; SIGHUP calls the reload hook (log reopening).
// Nothing depends on a clean shutdown: SIGKILL is always safe for the store.
//
// Ownership: owns the io_context, listeners, limiter, registry and metrics; services are
// borrowed and must outlive run(). Thread-safety: configure (addListener, onReload) before
// run(); stop() may be called from any thread.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/base/result.h"
#include "lib/config/config.h"
#include "lib/net/connection_limiter.h"
#include "lib/net/listener.h"
#include "lib/net/metrics.h"
#include "lib/net/service.h"
#include "lib/net/tls.h"

namespace darius::net {

struct ServerHostOptions {
  unsigned threads = 0;  // 0: one per core
  unsigned blocking_threads = 2;  // sessions' mailbox work, password hashing (blocking_threads)
  std::chrono::milliseconds shutdown_timeout{10000};
  size_t max_connections = 10000;
  size_t max_connections_per_host = 200;
  // How long a connection closed to make room for a newcomer (see ConnectionLimiter) may take
  // to say goodbye before its socket is reset: its slot is the newcomer's at once, so without
  // this bound a client that stops reading would keep the socket open past the limits.
  std::chrono::milliseconds eviction_goodbye = kDefaultEvictionGoodbye;
};

class ServerHost {
 public:
  explicit ServerHost(ServerHostOptions options);
  ~ServerHost();

  asio::io_context& io() { return io_; }
  Metrics& metrics() { return metrics_; }
  ConnectionRegistry& registry() { return registry_; }

  // Binds every address for the service now; a bind failure is returned (start-up error).
  base::Status addListener(const config::ListenAddress& address, Service& service,
                           TlsContextPtr tls, bool implicit_tls);

  struct Bound {
    std::string service;
    std::string address;
  };
  std::vector<Bound> boundListeners() const;

  void onReload(std::function<void()> fn) { reload_ = std::move(fn); }

  // Starts the listeners and serves until stop() or SIGTERM/SIGINT; returns the exit code.
  int run();
  void stop();

 private:
  asio::awaitable<void> signalLoop();
  asio::awaitable<void> drain();

  ServerHostOptions options_;
  // Before io_, so it outlives it: sessions still running at the end of shutdown_timeout are
  // destroyed with io_, and their connections give their limiter tickets back then.
  ConnectionLimiter limiter_;
  asio::io_context io_;
  asio::thread_pool blocking_;
  asio::signal_set signals_;
  Metrics metrics_;
  ConnectionRegistry registry_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::function<void()> reload_;
  std::atomic<bool> stopping_{false};
};

}  // namespace darius::net
