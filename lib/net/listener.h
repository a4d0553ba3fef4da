// Listener: one bound listening socket (TCP on IPv4/IPv6, or a unix socket) feeding one
// Service; ConnectionRegistry: the set of live connections, for shutdown and metrics.
//
// Ownership: the ServerHost owns listeners and the registry; both outlive the sessions they
// spawn only until shutdown, after which sessions hold no reference back to them.
// Thread-safety: Listener is driven from the io_context; ConnectionRegistry is thread-safe.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "lib/base/result.h"
#include "lib/config/config.h"
#include "lib/net/connection.h"
#include "lib/net/connection_limiter.h"
#include "lib/net/metrics.h"
#include "lib/net/service.h"
#include "lib/net/tls.h"

namespace darius::net {

class ConnectionRegistry {
 public:
  uint64_t add(const std::shared_ptr<Connection>& c);
  void remove(uint64_t id);
  void shutdownAll();
  size_t size() const;

 private:
  mutable std::mutex mu_;
  uint64_t next_ = 1;
  std::unordered_map<uint64_t, std::weak_ptr<Connection>> live_;
};

struct ListenerDeps {
  ConnectionLimiter* limiter;
  Metrics* metrics;
  ConnectionRegistry* registry;
  asio::thread_pool* blocking = nullptr;  // for Connection::offload
  std::chrono::milliseconds eviction_goodbye = kDefaultEvictionGoodbye;
};

class Listener {
 public:
  // Binds now, so a port in use is a start-up error. implicit_tls: handshake before serve().
  static base::Result<std::unique_ptr<Listener>> bind(asio::io_context& io,
                                                      const config::ListenAddress& address,
                                                      Service& service, TlsContextPtr tls,
                                                      bool implicit_tls, ListenerDeps deps);
  ~Listener();

  void start();
  void stop();
  // "127.0.0.1:10143", "[::]:993" or "unix:/run/darius/lmtp" with the real port after port 0.
  const std::string& boundAddress() const { return bound_; }
  std::string_view serviceName() const { return service_.name(); }

 private:
  Listener(asio::io_context& io, Service& service, TlsContextPtr tls, bool implicit_tls,
           ListenerDeps deps);
  asio::awaitable<void> acceptLoop();
  asio::awaitable<void> runSession(Socket socket);

  asio::io_context& io_;
  asio::basic_socket_acceptor<asio::generic::stream_protocol> acceptor_;
  Service& service_;
  TlsContextPtr tls_;
  bool implicit_tls_;
  ListenerDeps deps_;
  std::string bound_;
  std::string unix_path_;
  std::atomic<uint64_t>* accepted_;
  std::atomic<uint64_t>* refused_;
  std::atomic<uint64_t>* evicted_;
  std::atomic<int64_t>* active_;
};

}  // namespace darius::net
