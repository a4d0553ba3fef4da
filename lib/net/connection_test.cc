// Real sockets on loopback: a tiny line service behind ServerHost, driven by blocking
// Asio clients on another thread.
#include <gtest/gtest.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <filesystem>
#include <future>
#include <thread>

#include "lib/net/server_host.h"

namespace darius::net {
namespace {

using namespace std::chrono_literals;

// Echo service: "STARTTLS" upgrades, "LIT n" reads an n-byte literal (after "+ go", as IMAP
// acknowledges a synchronizing literal, when n is within the limit), "BIG n" replies with n
// bytes (a reply larger than its command, like a FETCH), "LOGIN" marks the connection
// authenticated ("GATED LOGIN" once login_gate is ready), "QUIT" ends, anything else is
// echoed back; reports the TLS binding type on "CB". Says "BYE evicted" when closed to make
// room for a newcomer.
class EchoService : public Service {
 public:
  std::string_view name() const override { return "echo"; }
  std::string refusal() const override { return "BUSY\r\n"; }
  ReaderLimits limits() const override { return {.max_line = 64, .max_literal = 1024}; }
  std::chrono::milliseconds initialTimeout() const override { return timeout; }
  bool evictableBeforeLogin() const override { return evictable; }

  asio::awaitable<void> serve(std::shared_ptr<Connection> c) override {
    c->setDeadline(deadline);
    c->write("HELLO\r\n");
    if (!(co_await c->flush()).isOk()) co_return;
    for (;;) {
      auto line = co_await c->readLine(true);
      if (!line.ok()) {
        if (line.status().code() == base::Code::kTooBig) {
          c->write("TOOBIG\r\n");
          (void)co_await c->flush();
          continue;
        }
        if (c->evicted()) {
          c->write("BYE evicted\r\n");
          (void)co_await c->flush();
        } else if (c->shuttingDown()) {
          c->write("BYE shutdown\r\n");
          (void)co_await c->flush();
        }
        co_return;
      }
      if (*line == "QUIT") co_return;
      if (*line == "STARTTLS") {
        c->write("GO\r\n");
        (void)co_await c->flush();
        auto s = co_await c->startTls();
        if (!s.isOk()) {
          last_error = s.toString();
          co_return;
        }
        continue;
      }
      if (*line == "LOGIN" || *line == "GATED LOGIN") {
        if (*line == "GATED LOGIN") {
          // A password check the test lets finish when it likes (at most 10 s).
          c->write("+ checking\r\n");
          if (!(co_await c->flush()).isOk()) co_return;
          co_await c->offload([this] { return login_gate.wait_for(10s); });
        }
        c->markAuthenticated();
        c->write("LOGGED IN\r\n");
      } else if (*line == "OFFLOAD") {
        auto here = std::this_thread::get_id();
        auto there = co_await c->offload([] { return std::this_thread::get_id(); });
        bool back_on_strand = c->executor() == co_await asio::this_coro::executor;
        c->write(std::string(there != here ? "elsewhere" : "inline") +
                 (back_on_strand ? " back\r\n" : " lost\r\n"));
      } else if (line->rfind("DEADLINE ", 0) == 0) {
        c->setDeadline(std::chrono::milliseconds(std::stoll(line->substr(9))));
        c->write("ECHO " + *line + "\r\n");
      } else if (line->rfind("BIG ", 0) == 0) {
        c->write(std::string(std::stoull(line->substr(4)), 'x') + "\r\n");
      } else if (*line == "CB") {
        c->write(c->channelBinding().type + "\r\n");
      } else if (line->rfind("LIT ", 0) == 0) {
        const uint64_t n = std::stoull(line->substr(4));
        if (n <= limits().max_literal) {
          c->write("+ go\r\n");
          if (!(co_await c->flush()).isOk()) co_return;
        }
        auto bytes = co_await c->readBytes(n);
        c->write(bytes.ok() ? "GOT " + *bytes + "\r\n" : "ERR " + bytes.status().toString() + "\r\n");
      } else {
        c->write("ECHO " + *line + "\r\n");
      }
      if (!(co_await c->flush()).isOk()) co_return;
    }
  }

  std::chrono::milliseconds timeout{5000};
  std::chrono::milliseconds deadline{0};
  bool evictable = true;
  std::string last_error;
  std::shared_future<void> login_gate;
};

class NetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/darius-net-XXXXXX";
    dir_ = mkdtemp(tmpl);
    ASSERT_TRUE(writeSelfSignedCertificate(dir_ + "/cert.pem", dir_ + "/key.pem", "localhost", 2)
                    .isOk());
    TlsOptions o;
    o.cert_file = dir_ + "/cert.pem";
    o.key_file = dir_ + "/key.pem";
    auto ctx = makeServerTlsContext(o);
    ASSERT_TRUE(ctx.ok()) << ctx.status().toString();
    tls_ = *ctx;
  }
  void TearDown() override {
    if (host_) host_->stop();
    if (thread_.joinable()) thread_.join();
    std::filesystem::remove_all(dir_);
  }

  void start(size_t max_total = 100, size_t max_per_host = 100) {
    host_ = std::make_unique<ServerHost>(ServerHostOptions{
        .threads = 2, .shutdown_timeout = 2s, .max_connections = max_total,
        .max_connections_per_host = max_per_host, .eviction_goodbye = 1s});
    config::ListenAddress a;
    a.host = "127.0.0.1";
    ASSERT_TRUE(host_->addListener(a, service_, tls_, false).isOk());
    ASSERT_TRUE(host_->addListener(a, service_, tls_, true).isOk());
    auto b = host_->boundListeners();
    plain_port_ = static_cast<uint16_t>(std::stoi(b[0].address.substr(b[0].address.rfind(':') + 1)));
    tls_port_ = static_cast<uint16_t>(std::stoi(b[1].address.substr(b[1].address.rfind(':') + 1)));
    thread_ = std::thread([this] { host_->run(); });
  }

  // Whether the server reports n connections of the echo service evicted.
  bool evictedMetricIs(int n) {
    std::string row = "darius_connections_evicted_total{service=\"echo\"} " + std::to_string(n);
    return host_->metrics().render().find(row + "\n") != std::string::npos;
  }

  std::string dir_;
  TlsContextPtr tls_;
  EchoService service_;
  std::unique_ptr<ServerHost> host_;
  std::thread thread_;
  uint16_t plain_port_ = 0, tls_port_ = 0;
};

template <typename Stream>
std::string readLine(Stream& s, asio::streambuf& buf) {
  std::error_code ec;
  asio::read_until(s, buf, "\r\n", ec);
  if (ec) return "<" + ec.message() + ">";
  std::istream is(&buf);
  std::string line;
  std::getline(is, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

// Sends "noop" every 50 ms, at most `rounds` times, until a reply is not its echo; returns
// that reply ("<End of file>" when the server closed the connection).
std::string noopUntilClosed(asio::ip::tcp::socket& s, asio::streambuf& buf, int rounds) {
  std::string last;
  for (int i = 0; i < rounds; ++i) {
    std::error_code ec;
    asio::write(s, asio::buffer(std::string("noop\r\n")), ec);
    last = readLine(s, buf);
    if (last != "ECHO noop") break;
    std::this_thread::sleep_for(50ms);
  }
  return last;
}

asio::ip::tcp::endpoint local(uint16_t port) {
  return {asio::ip::make_address("127.0.0.1"), port};
}

// A blocking plain-TCP client of the echo service, for the connection-limit tests.
struct Client {
  Client(asio::io_context& io, uint16_t port) : socket(io) { socket.connect(local(port)); }
  std::string line() { return readLine(socket, buf); }
  void send(const std::string& bytes) { asio::write(socket, asio::buffer(bytes)); }
  // Sends one command; returns the first line of the reply.
  std::string ask(const std::string& command) {
    send(command + "\r\n");
    return line();
  }

  asio::ip::tcp::socket socket;
  asio::streambuf buf;
};

// Sends `command` over and over without reading a reply, until the server has taken nothing
// for half a second: its replies filled both socket buffers, so it is stuck writing one and
// reads no further. False if that does not happen within 30 s.
bool pipelineUntilTheServerStopsReading(asio::ip::tcp::socket& s, const std::string& command) {
  std::string chunk;
  while (chunk.size() < 64 * 1024) chunk += command;
  s.non_blocking(true);
  size_t at = 0;  // into chunk, so that the stream stays whole commands
  auto last_progress = std::chrono::steady_clock::now();
  const auto give_up = last_progress + 30s;
  while (std::chrono::steady_clock::now() < give_up) {
    std::error_code ec;
    size_t n = s.write_some(asio::buffer(chunk.data() + at, chunk.size() - at), ec);
    if (ec && ec != asio::error::would_block) return false;
    if (n > 0) {
      at = (at + n) % chunk.size();
      last_progress = std::chrono::steady_clock::now();
      continue;
    }
    if (std::chrono::steady_clock::now() - last_progress > 500ms) {
      s.non_blocking(false);
      return true;
    }
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

// Whether the peer resets the connection within `limit`, observed without reading (poll
// reports POLLHUP/POLLERR whatever events are asked for).
bool resetWithin(asio::ip::tcp::socket& s, std::chrono::milliseconds limit) {
  pollfd p{.fd = s.native_handle(), .events = 0, .revents = 0};
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < give_up) {
    if (::poll(&p, 1, 100) > 0 && (p.revents & (POLLHUP | POLLERR))) return true;
  }
  return false;
}

TEST_F(NetTest, PlainLinesLiteralsAndOverlongLines) {
  start();
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect(local(plain_port_));
  asio::streambuf buf;
  EXPECT_EQ(readLine(s, buf), "HELLO");
  asio::write(s, asio::buffer(std::string("one\r\ntwo\nLIT 5\r\nab\r\ncQUIT?\r\n")));
  EXPECT_EQ(readLine(s, buf), "ECHO one");
  EXPECT_EQ(readLine(s, buf), "ECHO two");
  EXPECT_EQ(readLine(s, buf), "+ go");
  EXPECT_EQ(readLine(s, buf), "GOT ab");  // the literal held a CRLF: it comes back as 2 lines
  EXPECT_EQ(readLine(s, buf), "c");
  EXPECT_EQ(readLine(s, buf), "ECHO QUIT?");
  asio::write(s, asio::buffer(std::string(10000, 'x') + "\r\nafter\r\n"));
  EXPECT_EQ(readLine(s, buf), "TOOBIG");
  EXPECT_EQ(readLine(s, buf), "ECHO after");
  asio::write(s, asio::buffer(std::string("LIT 5000\r\n")));
  EXPECT_EQ(readLine(s, buf), "ERR too_big: literal of 5000 bytes is over the limit of 1024");
  asio::write(s, asio::buffer(std::string("QUIT\r\n")));
  EXPECT_EQ(readLine(s, buf), "<End of file>");
}

TEST_F(NetTest, ImplicitTlsAndChannelBinding) {
  start();
  asio::io_context io;
  asio::ssl::context ctx(asio::ssl::context::tls_client);
  ctx.load_verify_file(dir_ + "/cert.pem");
  ctx.set_verify_mode(asio::ssl::verify_peer);
  asio::ssl::stream<asio::ip::tcp::socket> s(io, ctx);
  SSL_set_tlsext_host_name(s.native_handle(), "localhost");
  SSL_set1_host(s.native_handle(), "localhost");
  s.next_layer().connect(local(tls_port_));
  s.handshake(asio::ssl::stream_base::client);
  asio::streambuf buf;
  EXPECT_EQ(readLine(s, buf), "HELLO");
  asio::write(s, asio::buffer(std::string("CB\r\n")));
  EXPECT_EQ(readLine(s, buf), "tls-exporter");
}

TEST_F(NetTest, StartTlsUpgrades) {
  start();
  asio::io_context io;
  asio::ssl::context ctx(asio::ssl::context::tls_client);
  asio::ssl::stream<asio::ip::tcp::socket> s(io, ctx);
  s.next_layer().connect(local(plain_port_));
  asio::streambuf buf;
  EXPECT_EQ(readLine(s.next_layer(), buf), "HELLO");
  asio::write(s.next_layer(), asio::buffer(std::string("STARTTLS\r\n")));
  EXPECT_EQ(readLine(s.next_layer(), buf), "GO");
  s.handshake(asio::ssl::stream_base::client);
  asio::write(s, asio::buffer(std::string("hi\r\n")));
  EXPECT_EQ(readLine(s, buf), "ECHO hi");
}

TEST_F(NetTest, StartTlsRefusesPipelinedPlaintext) {
  start();
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect(local(plain_port_));
  asio::streambuf buf;
  EXPECT_EQ(readLine(s, buf), "HELLO");
  // The classic injection: a command smuggled behind STARTTLS in the same packet.
  asio::write(s, asio::buffer(std::string("STARTTLS\r\nevil\r\n")));
  EXPECT_EQ(readLine(s, buf), "GO");
  EXPECT_EQ(readLine(s, buf), "<End of file>");
  EXPECT_NE(service_.last_error.find("pipelined"), std::string::npos) << service_.last_error;
}

// Nothing can make room: the only connection has logged in.
TEST_F(NetTest, PerHostLimitRefusesWithMessage) {
  start(100, 1);
  asio::io_context io;
  Client a(io, plain_port_);
  EXPECT_EQ(a.line(), "HELLO");
  EXPECT_EQ(a.ask("LOGIN"), "LOGGED IN");
  Client b(io, plain_port_);
  EXPECT_EQ(b.line(), "BUSY");
  EXPECT_EQ(b.line(), "<End of file>");
  EXPECT_EQ(a.ask("still here"), "ECHO still here");
}

// Issue 16: at the limit, the oldest connection that has not logged in says goodbye and
// closes, and the newcomer is served; a logged-in one is kept, however old.
TEST_F(NetTest, PerHostLimitClosesTheOldestConnectionNotLoggedIn) {
  start(100, 3);
  asio::io_context io;
  Client in(io, plain_port_);
  EXPECT_EQ(in.line(), "HELLO");
  EXPECT_EQ(in.ask("LOGIN"), "LOGGED IN");
  Client idle1(io, plain_port_);
  EXPECT_EQ(idle1.line(), "HELLO");
  Client idle2(io, plain_port_);
  EXPECT_EQ(idle2.line(), "HELLO");
  Client next(io, plain_port_);
  EXPECT_EQ(next.line(), "HELLO");
  EXPECT_EQ(idle1.line(), "BYE evicted");
  EXPECT_EQ(idle1.line(), "<End of file>");
  for (Client* c : {&in, &idle2, &next}) EXPECT_EQ(c->ask("ping"), "ECHO ping");
  EXPECT_TRUE(evictedMetricIs(1)) << host_->metrics().render();
}

// A login that completes after its connection was chosen to make room wins: the connection
// stays (the host is over its limit by one), and the metric does not count it as evicted.
TEST_F(NetTest, ALoginThatOvertakesAnEvictionKeepsTheConnection) {
  std::promise<void> gate;
  service_.login_gate = gate.get_future().share();
  start(100, 1);
  asio::io_context io;
  Client a(io, plain_port_);
  EXPECT_EQ(a.line(), "HELLO");
  EXPECT_EQ(a.ask("GATED LOGIN"), "+ checking");  // a is in its password check
  Client b(io, plain_port_);
  EXPECT_EQ(b.line(), "HELLO");  // a was chosen before b was greeted
  gate.set_value();
  EXPECT_EQ(a.line(), "LOGGED IN");
  EXPECT_EQ(a.ask("ping"), "ECHO ping");
  EXPECT_EQ(b.ask("ping"), "ECHO ping");
  EXPECT_TRUE(evictedMetricIs(0)) << host_->metrics().render();
}

// A client in the middle of a command (here a literal) is not waiting between commands;
// its read is cancelled all the same, so an evicted connection cannot linger.
TEST_F(NetTest, EvictionInterruptsAReadInsideACommand) {
  start(100, 1);
  asio::io_context io;
  Client a(io, plain_port_);
  EXPECT_EQ(a.line(), "HELLO");
  // After "+ go" the session is inside the command: its next read is the literal's.
  EXPECT_EQ(a.ask("LIT 100"), "+ go");
  a.send("abc");  // and then nothing
  Client b(io, plain_port_);
  EXPECT_EQ(b.line(), "HELLO");
  EXPECT_EQ(a.line(), "ERR temporary: closed to make room for a newer connection "
                      "(connection limit)");
  EXPECT_EQ(a.line(), "BYE evicted");
  EXPECT_EQ(a.line(), "<End of file>");
}

// A client that stops reading cannot keep an evicted connection open: the reply the session
// is blocked writing, and then its goodbye, get eviction_goodbye (1 s here) between them, then
// the socket is reset. Before, the slot went to the newcomer but the socket stayed until the
// inactivity timeout (a minute here), so the limits no longer bounded open sockets.
TEST_F(NetTest, EvictionClosesAConnectionWhoseClientStoppedReading) {
  service_.timeout = 60s;
  start(100, 1);
  asio::io_context io;
  Client a(io, plain_port_);
  EXPECT_EQ(a.line(), "HELLO");
  ASSERT_TRUE(pipelineUntilTheServerStopsReading(a.socket, "BIG 60000\r\n"));
  Client b(io, plain_port_);
  EXPECT_EQ(b.line(), "HELLO");
  // a reads nothing, so its receive window stays shut: only a reset (RST) can reach it.
  EXPECT_TRUE(resetWithin(a.socket, 10s)) << "the evicted connection is still open";
  EXPECT_EQ(b.ask("ping"), "ECHO ping");
}

// A service whose connections must not be cut off (LMTP) keeps them; newcomers are refused.
TEST_F(NetTest, ConnectionsOfANonEvictableServiceAreKept) {
  service_.evictable = false;
  start(100, 1);
  asio::io_context io;
  Client a(io, plain_port_);
  EXPECT_EQ(a.line(), "HELLO");
  Client b(io, plain_port_);
  EXPECT_EQ(b.line(), "BUSY");
  EXPECT_EQ(a.ask("ping"), "ECHO ping");
}

// max_connections applies the same policy, and over implicit TLS the goodbye goes out too.
TEST_F(NetTest, TotalLimitClosesTheOldestNotLoggedInOverTls) {
  start(2, 100);
  asio::io_context io;
  asio::ssl::context ctx(asio::ssl::context::tls_client);
  asio::ssl::stream<asio::ip::tcp::socket> old(io, ctx);
  old.next_layer().connect(local(tls_port_));
  old.handshake(asio::ssl::stream_base::client);
  asio::streambuf bo;
  EXPECT_EQ(readLine(old, bo), "HELLO");
  Client mid(io, plain_port_);
  EXPECT_EQ(mid.line(), "HELLO");
  Client last(io, plain_port_);
  EXPECT_EQ(last.line(), "HELLO");
  EXPECT_EQ(readLine(old, bo), "BYE evicted");
  EXPECT_EQ(mid.ask("ping"), "ECHO ping");
}

TEST_F(NetTest, InactivityTimeoutClosesTheConnection) {
  service_.timeout = 200ms;
  start();
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect(local(plain_port_));
  asio::streambuf buf;
  EXPECT_EQ(readLine(s, buf), "HELLO");
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(readLine(s, buf), "<End of file>");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

// The timer is started once and checks at its expiry (connection.cc): a client that talks
// more often than the timeout outlives the timer's first expiry, and is still timed out
// once it goes quiet.
TEST_F(NetTest, InactivityTimeoutCountsFromTheLastWaitNotTheFirst) {
  service_.timeout = 600ms;
  start();
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect(local(plain_port_));
  asio::streambuf buf;
  EXPECT_EQ(readLine(s, buf), "HELLO");
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 12; ++i) {  // 1.2 s of activity, twice the timeout
    std::this_thread::sleep_for(100ms);
    asio::write(s, asio::buffer("ping " + std::to_string(i) + "\r\n"));
    ASSERT_EQ(readLine(s, buf), "ECHO ping " + std::to_string(i));
  }
  auto quiet = std::chrono::steady_clock::now();
  EXPECT_GT(quiet - t0, 1s);
  EXPECT_EQ(readLine(s, buf), "<End of file>");
  EXPECT_LT(std::chrono::steady_clock::now() - quiet, 5s);
}

// A deadline set while the timer runs toward a later expiry (login_timeout set after the
// greeting) still ends the connection on time: the next wait starts the timer earlier.
TEST_F(NetTest, ADeadlineSetMidSessionCutsInBeforeTheRunningTimer) {
  service_.timeout = 30s;
  start();
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect(local(plain_port_));
  asio::streambuf buf;
  EXPECT_EQ(readLine(s, buf), "HELLO");
  asio::write(s, asio::buffer(std::string("DEADLINE 300\r\n")));
  EXPECT_EQ(readLine(s, buf), "ECHO DEADLINE 300");
  auto t0 = std::chrono::steady_clock::now();
  // Active all along (10 s of NOOPs at most): only the deadline can end it.
  EXPECT_EQ(noopUntilClosed(s, buf, 200), "<End of file>");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST_F(NetTest, OffloadRunsOnTheBlockingPoolAndComesBack) {
  start();
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect(local(plain_port_));
  asio::streambuf buf;
  EXPECT_EQ(readLine(s, buf), "HELLO");
  asio::write(s, asio::buffer(std::string("OFFLOAD\r\nafter\r\n")));
  EXPECT_EQ(readLine(s, buf), "elsewhere back");
  EXPECT_EQ(readLine(s, buf), "ECHO after");
}

TEST_F(NetTest, UnixSocketListener) {
  host_ = std::make_unique<ServerHost>(ServerHostOptions{.threads = 1});
  config::ListenAddress a;
  a.kind = config::ListenAddress::kUnix;
  a.path = dir_ + "/lmtp.sock";
  // A stale socket file from a killed server must not block the bind.
  {
    asio::io_context io;
    asio::local::stream_protocol::acceptor stale(io, asio::local::stream_protocol::endpoint(a.path));
  }
  ASSERT_TRUE(std::filesystem::exists(a.path));
  ASSERT_TRUE(host_->addListener(a, service_, nullptr, false).isOk());
  EXPECT_EQ(host_->boundListeners()[0].address, "unix:" + a.path);
  thread_ = std::thread([this] { host_->run(); });
  asio::io_context io;
  asio::local::stream_protocol::socket s(io);
  s.connect(asio::local::stream_protocol::endpoint(a.path));
  asio::streambuf buf;
  EXPECT_EQ(readLine(s, buf), "HELLO");
  asio::write(s, asio::buffer(std::string("over unix\r\n")));
  EXPECT_EQ(readLine(s, buf), "ECHO over unix");
  // A second server on the same live socket is refused instead of stealing it.
  ServerHost other(ServerHostOptions{.threads = 1});
  auto busy = other.addListener(a, service_, nullptr, false);
  EXPECT_EQ(busy.code(), base::Code::kExists) << busy.toString();
}

TEST_F(NetTest, DeadlineEndsEvenAnActiveConnection) {
  service_.deadline = 400ms;
  start();
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect(local(plain_port_));
  asio::streambuf buf;
  EXPECT_EQ(readLine(s, buf), "HELLO");
  auto t0 = std::chrono::steady_clock::now();
  // A client that keeps talking (NOOPs before login) still meets the deadline.
  EXPECT_EQ(noopUntilClosed(s, buf, 100), "<End of file>");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 4s);
}

TEST_F(NetTest, ShutdownInterruptsIdleSessions) {
  start();
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect(local(plain_port_));
  asio::streambuf buf;
  EXPECT_EQ(readLine(s, buf), "HELLO");
  host_->stop();
  EXPECT_EQ(readLine(s, buf), "BYE shutdown");
  thread_.join();
  host_.reset();
  asio::ip::tcp::socket again(io);
  std::error_code ec;
  again.connect(local(plain_port_), ec);
  EXPECT_TRUE(ec) << "listener still accepting after shutdown";
}

}  // namespace
}  // namespace darius::net
