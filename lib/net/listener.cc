#include "lib/net/listener.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "lib/log/log.h"
#include "lib/net/as_tuple_token.h"

namespace darius::net {

using base::Result;
using base::Status;

namespace {

PeerInfo peerOf(Socket& s) {
  std::error_code ec;
  auto ep = s.remote_endpoint(ec);
  if (ec) return {"unknown", "unknown"};
  const sockaddr* sa = static_cast<const sockaddr*>(ep.data());
  if (sa->sa_family == AF_INET || sa->sa_family == AF_INET6) {
    asio::ip::tcp::endpoint tcp;
    std::memcpy(tcp.data(), ep.data(), ep.size());
    tcp.resize(ep.size());
    asio::ip::address a = tcp.address();
    if (a.is_v6() && a.to_v6().is_v4_mapped()) {
      a = asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
    }
    std::string host = a.to_string();
    std::string addr = a.is_v6() ? "[" + host + "]:" : host + ":";
    return {host, addr + std::to_string(tcp.port())};
  }
  return {"unix", "unix"};
}
}  // namespace

uint64_t ConnectionRegistry::add(const std::shared_ptr<Connection>& c) {
  std::lock_guard lock(mu_);
  uint64_t id = next_++;
  live_.emplace(id, c);
  return id;
}

void ConnectionRegistry::remove(uint64_t id) {
  std::lock_guard lock(mu_);
  live_.erase(id);
}

void ConnectionRegistry::shutdownAll() {
  std::lock_guard lock(mu_);
  for (auto& [id, weak] : live_) {
    if (auto c = weak.lock()) c->requestShutdown();
  }
}

size_t ConnectionRegistry::size() const {
  std::lock_guard lock(mu_);
  return live_.size();
}

Listener::Listener(asio::io_context& io, Service& service, TlsContextPtr tls, bool implicit_tls,
                   ListenerDeps deps)
    : io_(io),
      acceptor_(io),
      service_(service),
      tls_(std::move(tls)),
      implicit_tls_(implicit_tls),
      deps_(deps) {
  Labels l{{"service", std::string(service.name())}};
  accepted_ = &deps.metrics->counter("darius_connections_total",
                                     "Connections accepted, per service.", l);
  refused_ = &deps.metrics->counter("darius_connections_refused_total",
                                    "Connections refused by a connection limit, per service.", l);
  evicted_ = &deps.metrics->counter(
      "darius_connections_evicted_total",
      "Connections closed before login to make room for a newer one (a connection limit), "
      "per service; not those whose login completed first.",
      l);
  active_ = &deps.metrics->gauge("darius_connections_active", "Open connections, per service.", l);
}

Listener::~Listener() {
  stop();
  if (!unix_path_.empty()) ::unlink(unix_path_.c_str());
}

Result<std::unique_ptr<Listener>> Listener::bind(asio::io_context& io,
                                                 const config::ListenAddress& address,
                                                 Service& service, TlsContextPtr tls,
                                                 bool implicit_tls, ListenerDeps deps) {
  std::unique_ptr<Listener> l(new Listener(io, service, std::move(tls), implicit_tls, deps));
  std::error_code ec;
  asio::generic::stream_protocol::endpoint ep;
  if (address.kind == config::ListenAddress::kUnix) {
    // A socket file left by a killed server would make bind fail; nobody can be listening on
    // it if connecting fails, so it is safe to remove.
    asio::local::stream_protocol::socket probe(io);
    probe.connect(asio::local::stream_protocol::endpoint(address.path), ec);
    if (!ec) return Status::exists("another process is listening on unix:" + address.path);
    ::unlink(address.path.c_str());
    ep = asio::local::stream_protocol::endpoint(address.path);
    l->unix_path_ = address.path;
  } else {
    asio::ip::address ip;
    if (address.host.empty() || address.host == "*") {
      ip = asio::ip::address_v6::any();
    } else {
      ip = asio::ip::make_address(address.host, ec);
      if (ec) return Status::invalid("bad listen address " + address.toString());
    }
    ep = asio::ip::tcp::endpoint(ip, address.port);
  }
  l->acceptor_.open(ep.protocol(), ec);
  if (!ec && address.kind != config::ListenAddress::kUnix) {
    l->acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec && (address.host.empty() || address.host == "*")) {
      // "*" means every address, IPv4 included.
      l->acceptor_.set_option(asio::ip::v6_only(false), ec);
    }
  }
  if (!ec) l->acceptor_.bind(ep, ec);
  if (!ec) l->acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status(ec == asio::error::address_in_use ? base::Code::kExists : base::Code::kIoError,
                  "cannot listen on " + address.toString() + " for " +
                      std::string(service.name()) + ": " + ec.message());
  }
  if (address.kind == config::ListenAddress::kUnix) {
    ::chmod(address.path.c_str(), 0777);  // LMTP from the local MTA; access via directory mode
    l->bound_ = "unix:" + address.path;
  } else {
    asio::ip::tcp::endpoint bound;
    auto local = l->acceptor_.local_endpoint(ec);
    std::memcpy(bound.data(), local.data(), local.size());
    bound.resize(local.size());
    std::string host = bound.address().to_string();
    if (address.host.empty() || address.host == "*") host = "*";
    l->bound_ = (bound.address().is_v6() && host != "*" ? "[" + host + "]" : host) + ":" +
                std::to_string(bound.port());
  }
  return l;
}

void Listener::start() {
  asio::co_spawn(io_, acceptLoop(), asio::detached);
}

void Listener::stop() {
  std::error_code ignore;
  acceptor_.close(ignore);
}

asio::awaitable<void> Listener::acceptLoop() {
  while (acceptor_.is_open()) {
    auto [ec, socket] = co_await acceptor_.async_accept(asio::make_strand(io_), kAsTuple);
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
      // EMFILE and friends: back off briefly instead of spinning.
      log::warning("accept on {} failed: {}", bound_, ec.message());
      asio::steady_timer t(io_, std::chrono::milliseconds(100));
      co_await t.async_wait(kAsTuple);
      continue;
    }
    auto exec = socket.get_executor();
    asio::co_spawn(exec, runSession(std::move(socket)), asio::detached);
  }
}

asio::awaitable<void> Listener::runSession(Socket socket) {
  PeerInfo peer = peerOf(socket);
  std::error_code ignore;
  if (unix_path_.empty()) socket.set_option(asio::ip::tcp::no_delay(true), ignore);
  auto conn = std::make_shared<Connection>(std::move(socket), peer, service_.limits(), tls_);
  conn->setTimeout(service_.initialTimeout());
  // How the limiter closes this connection if it has to make room while it has not logged in.
  ConnectionLimiter::Evictor evict;
  if (service_.evictableBeforeLogin()) {
    evict = [weak = std::weak_ptr<Connection>(conn), name = service_.name(),
             goodbye = deps_.eviction_goodbye] {
      auto c = weak.lock();
      if (!c) return;  // ended meanwhile: its slot is free anyway
      log::notice("{}: connection limit reached: closing the connection from {}, which has "
                  "not logged in, to make room",
                  name, c->peer().address);
      c->requestEviction(goodbye);
    };
  }
  auto ticket = deps_.limiter->tryAcquire(peer.host, std::move(evict));
  if (!ticket) {
    ++*refused_;
    log::notice("{}: refused connection from {}: connection limit reached", service_.name(),
                peer.address);
    std::string msg = implicit_tls_ ? std::string() : service_.refusal();
    if (!msg.empty()) {
      conn->write(msg);
      (void)co_await conn->flush();
    }
    conn->close();
    co_return;
  }
  conn->holdSlot(std::move(*ticket));
  ++*accepted_;
  ++*active_;
  conn->setBlockingPool(deps_.blocking);
  uint64_t id = deps_.registry->add(conn);
  bool ok = true;
  if (implicit_tls_) {
    Status s = co_await conn->handshake();
    if (!s.isOk()) {
      log::info("{}: {} from {}", service_.name(), s.message(), peer.address);
      ok = false;
    }
  }
  if (ok) {
    try {
      co_await service_.serve(conn);
    } catch (const std::exception& e) {
      // Sessions report errors as Status; an exception here is a bug, but it must cost one
      // session, not the server.
      log::error("{}: session for {} ended by exception: {}", service_.name(), peer.address,
                 e.what());
    }
  }
  // Counted here, not by the evictor: a login that completes first voids an eviction.
  if (conn->evicted()) ++*evicted_;
  co_await conn->gracefulClose();
  deps_.registry->remove(id);
  --*active_;
}

}  // namespace darius::net
