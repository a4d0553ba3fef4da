#include "lib/net/server_host.h"

#include <csignal>
#include <thread>

#include "lib/log/log.h"
#include "lib/net/as_tuple_token.h"

namespace darius::net {

using base::Status;

namespace {}

ServerHost::ServerHost(ServerHostOptions options)
    : options_(options),
      limiter_(options.max_connections, options.max_connections_per_host),
      blocking_(std::max(1u, options.blocking_threads)),
      signals_(io_, SIGTERM, SIGINT, SIGHUP) {
  // A client that goes away mid-write must not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  auto start = std::chrono::steady_clock::now();
  metrics_.callbackGauge("darius_uptime_seconds", "Seconds since dariusd started.", [start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
}

ServerHost::~ServerHost() = default;

Status ServerHost::addListener(const config::ListenAddress& address, Service& service,
                               TlsContextPtr tls, bool implicit_tls) {
  auto l = Listener::bind(
      io_, address, service, std::move(tls), implicit_tls,
      ListenerDeps{&limiter_, &metrics_, &registry_, &blocking_, options_.eviction_goodbye});
  if (!l.ok()) return l.status();
  listeners_.push_back(std::move(*l));
  return Status::ok();
}

std::vector<ServerHost::Bound> ServerHost::boundListeners() const {
  std::vector<Bound> out;
  for (const auto& l : listeners_) {
    out.push_back({std::string(l->serviceName()), l->boundAddress()});
  }
  return out;
}

asio::awaitable<void> ServerHost::signalLoop() {
  for (;;) {
    auto [ec, sig] = co_await signals_.async_wait(kAsTuple);
    if (ec) co_return;
    if (sig == SIGHUP) {
      log::notice("SIGHUP: reopening logs");
      if (reload_) reload_();
      continue;
    }
    log::notice("signal {}: shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    stop();
    co_return;
  }
}

asio::awaitable<void> ServerHost::drain() {
  auto deadline = std::chrono::steady_clock::now() + options_.shutdown_timeout;
  asio::steady_timer t(io_);
  while (registry_.size() > 0 && std::chrono::steady_clock::now() < deadline) {
    t.expires_after(std::chrono::milliseconds(20));
    co_await t.async_wait(kAsTuple);
  }
  if (registry_.size() > 0) {
    log::warning("shutdown: {} sessions still busy after {} ms; stopping anyway",
                 registry_.size(), options_.shutdown_timeout.count());
  }
  io_.stop();
}

void ServerHost::stop() {
  if (stopping_.exchange(true)) return;
  asio::post(io_, [this] {
    for (auto& l : listeners_) l->stop();
    std::error_code ignore;
    signals_.cancel(ignore);
    registry_.shutdownAll();
    asio::co_spawn(io_, drain(), asio::detached);
  });
}

int ServerHost::run() {
  for (auto& l : listeners_) l->start();
  asio::co_spawn(io_, signalLoop(), asio::detached);
  unsigned n = options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < n; ++i) pool.emplace_back([this] { io_.run(); });
  io_.run();
  for (auto& t : pool) t.join();
  blocking_.join();
  return 0;
}

}  // namespace darius::net
