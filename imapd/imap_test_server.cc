#include "imapd/imap_test_server.h"

#include <stdlib.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "lib/config/config.h"

namespace darius::imapd::testing {

using namespace std::chrono_literals;

namespace {
constexpr auto kTimeout = 10s;

uint16_t portOf(const std::string& address) {
  return static_cast<uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
}
}  // namespace

ImapClient::ImapClient(uint16_t port, const std::string& ca_file, bool implicit_tls)
    : ctx_(asio::ssl::context::tls_client), stream_(io_, ctx_) {
  ctx_.load_verify_file(ca_file);
  ctx_.set_verify_mode(asio::ssl::verify_peer);
  SSL_set_tlsext_host_name(stream_.native_handle(), "localhost");
  SSL_set1_host(stream_.native_handle(), "localhost");
  stream_.next_layer().connect({asio::ip::make_address("127.0.0.1"), port});
  if (implicit_tls) {
    std::error_code ec;
    stream_.handshake(asio::ssl::stream_base::client, ec);
    tls_ = !ec;
  }
}

template <typename Op>
bool ImapClient::run(Op op) {
  bool done = false;
  op(done);
  io_.restart();
  io_.run_for(kTimeout);
  if (!done) {
    std::error_code ignore;
    stream_.next_layer().cancel(ignore);
    io_.restart();
    io_.run();
  }
  return done;
}

void ImapClient::send(std::string_view bytes) {
  std::error_code ec;
  if (tls_) {
    asio::write(stream_, asio::buffer(bytes.data(), bytes.size()), ec);
  } else {
    asio::write(stream_.next_layer(), asio::buffer(bytes.data(), bytes.size()), ec);
  }
}

std::string ImapClient::line() {
  std::error_code ec;
  size_t n = 0;
  bool ok = run([&](bool& done) {
    auto handler = [&](std::error_code e, size_t k) {
      ec = e;
      n = k;
      done = true;
    };
    if (tls_) {
      asio::async_read_until(stream_, buf_, "\r\n", handler);
    } else {
      asio::async_read_until(stream_.next_layer(), buf_, "\r\n", handler);
    }
  });
  if (!ok) return "<timeout>";
  if (ec) {
    bool eof = ec == asio::error::eof || ec == asio::ssl::error::stream_truncated ||
               ec == asio::error::connection_reset;
    return eof ? "<eof>" : "<" + ec.message() + ">";
  }
  std::string line(asio::buffers_begin(buf_.data()), asio::buffers_begin(buf_.data()) + n - 2);
  buf_.consume(n);
  return line;
}

std::vector<std::string> ImapClient::command(std::string_view command) {
  send(std::string(command) + "\r\n");
  std::string tag(command.substr(0, command.find(' ')));
  std::vector<std::string> lines;
  for (;;) {
    lines.push_back(line());
    const std::string& l = lines.back();
    if (l.rfind(tag + " ", 0) == 0 || l == "<eof>" || l == "<timeout>") return lines;
  }
}

bool ImapClient::startTls() {
  std::error_code ec;
  bool ok = run([&](bool& done) {
    stream_.async_handshake(asio::ssl::stream_base::client, [&](std::error_code e) {
      ec = e;
      done = true;
    });
  });
  tls_ = ok && !ec;
  return tls_;
}

void ImapServerTest::SetUp() {
  char tmpl[] = "/tmp/darius-imapd-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  dir_ = tmpl;
  cert_ = dir_ + "/cert.pem";
  ASSERT_TRUE(net::writeSelfSignedCertificate(cert_, dir_ + "/key.pem", "localhost", 2).isOk());
  auto users = auth::UserStore::open(dir_ + "/users", 1);
  ASSERT_TRUE(users.ok()) << users.status().toString();
  users_ = std::move(*users);
  ASSERT_TRUE(users_->add("fred", "secret").isOk());
}

void ImapServerTest::TearDown() {
  if (host_) host_->stop();
  if (thread_.joinable()) thread_.join();
  host_.reset();
  std::filesystem::remove_all(dir_);
}

void ImapServerTest::start(const std::string& config, bool tls_available) {
  // Each key may appear once in a config file: the test's settings replace the defaults.
  std::map<std::string, std::string> options = {{"allow_plaintext_auth", "no"},
                                                {"auth_failure_delay", "50ms"},
                                                {"servername", "test.example"},
                                                {"max_line_length", "2K"},
                                                {"max_literal_size", "4K"}};
  std::istringstream extra(config);
  for (std::string line; std::getline(extra, line);) {
    size_t colon = line.find(':');
    if (colon != std::string::npos) options[line.substr(0, colon)] = line.substr(colon + 1);
  }
  std::string text;
  for (const auto& [key, value] : options) text += key + ": " + value + "\n";
  auto cfg = config::Config::parse(text, "test.conf", dir_);
  ASSERT_TRUE(cfg.ok()) << cfg.status().toString();
  net::TlsOptions o;
  o.cert_file = cert_;
  o.key_file = dir_ + "/key.pem";
  auto tls = net::makeServerTlsContext(o);
  ASSERT_TRUE(tls.ok()) << tls.status().toString();

  host_ =
      std::make_unique<net::ServerHost>(net::ServerHostOptions{.threads = 2,
                                                               .shutdown_timeout = 2s,
                                                               .max_connections = 100,
                                                               .max_connections_per_host = 100});
  imap_ = std::make_unique<ImapService>("imap", *cfg, *users_, nullptr, host_->metrics(), tls_available);
  imaps_ = std::make_unique<ImapService>("imaps", *cfg, *users_, nullptr, host_->metrics(), true);
  config::ListenAddress a;
  a.host = "127.0.0.1";
  ASSERT_TRUE(host_->addListener(a, *imap_, tls_available ? *tls : nullptr, false).isOk());
  ASSERT_TRUE(host_->addListener(a, *imaps_, *tls, true).isOk());
  for (const auto& b : host_->boundListeners()) {
    (b.service == "imaps" ? tls_port_ : plain_port_) = portOf(b.address);
  }
  ASSERT_NE(plain_port_, 0);
  ASSERT_NE(tls_port_, 0);
  thread_ = std::thread([this] { host_->run(); });
}

std::unique_ptr<ImapClient> ImapServerTest::greeted() {
  auto c = plain();
  std::string greeting = c->line();
  EXPECT_EQ(greeting.rfind("* OK ", 0), 0u) << greeting;
  return c;
}

}  // namespace darius::imapd::testing
