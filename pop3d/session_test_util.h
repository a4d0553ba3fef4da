// Test support for pop3d's session tests: a blocking line client (plaintext, then TLS by STLS
// or implicit) and a fixture that runs the real Pop3Service behind a real ServerHost on
// loopback, over a real UserStore and a real mail Store in a temporary directory.
//
// Ownership: the fixture owns everything it starts and removes the directory at TearDown.
// Thread-safety: used from the test thread; the host runs on its own thread.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "lib/net/server_host.h"
#include "mailbox/store.h"
#include "pop3d/pop3_service.h"

namespace darius::pop3d::test {

using namespace std::chrono_literals;

// A line-oriented client: plaintext, then optionally TLS (STLS or implicit).
class Client {
 public:
  explicit Client(uint16_t port, bool implicit_tls = false) : stream_(io_, ctx_) {
    stream_.next_layer().connect({asio::ip::make_address("127.0.0.1"), port});
    if (implicit_tls) handshake();
  }
  void handshake() {
    stream_.handshake(asio::ssl::stream_base::client);
    tls_ = true;
  }
  void send(std::string_view data) {
    std::error_code ec;  // a write after the server closed is not the test's failure
    if (tls_) {
      asio::write(stream_, asio::buffer(data), ec);
    } else {
      asio::write(stream_.next_layer(), asio::buffer(data), ec);
    }
  }
  // One line without CRLF; "<eof>" when the server closed, "<timeout>" after 10 s.
  std::string line() {
    std::error_code ec;
    bool done = false;
    auto on_read = [&](std::error_code e, size_t) {
      ec = e;
      done = true;
    };
    if (tls_) {
      asio::async_read_until(stream_, buf_, "\r\n", on_read);
    } else {
      asio::async_read_until(stream_.next_layer(), buf_, "\r\n", on_read);
    }
    io_.restart();
    io_.run_for(10s);
    if (!done) {
      stream_.next_layer().cancel();
      io_.restart();
      io_.run();
      return "<timeout>";
    }
    if (ec) return "<eof>";
    std::istream is(&buf_);
    std::string l;
    std::getline(is, l);
    if (!l.empty() && l.back() == '\r') l.pop_back();
    return l;
  }
  // The lines of a multi-line reply after its first line, up to (without) the ".".
  std::vector<std::string> body() {
    std::vector<std::string> out;
    for (std::string l = line(); l != "." && l[0] != '<'; l = line()) out.push_back(l);
    return out;
  }
  std::string command(std::string_view cmd) {
    send(std::string(cmd) + "\r\n");
    return line();
  }

 private:
  asio::io_context io_;
  asio::ssl::context ctx_{asio::ssl::context::tls_client};
  asio::ssl::stream<asio::ip::tcp::socket> stream_;
  asio::streambuf buf_;
  bool tls_ = false;
};

inline bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

class Pop3Test : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/darius-pop3-XXXXXX";
    dir_ = mkdtemp(tmpl);
    ASSERT_TRUE(
        net::writeSelfSignedCertificate(dir_ + "/cert.pem", dir_ + "/key.pem", "localhost", 2)
            .isOk());
    net::TlsOptions o;
    o.cert_file = dir_ + "/cert.pem";
    o.key_file = dir_ + "/key.pem";
    auto ctx = net::makeServerTlsContext(o);
    ASSERT_TRUE(ctx.ok()) << ctx.status().toString();
    tls_ = *ctx;
    auto users = auth::UserStore::open(dir_ + "/users", 4096);
    ASSERT_TRUE(users.ok()) << users.status().toString();
    users_ = std::move(*users);
    ASSERT_TRUE(users_->add("alice", "secret pass").isOk());
    options_.servername = "pop.example.org";
    options_.auth_failure_delay = 50ms;
    options_.login_timeout = 10s;
    options_.lock_dir = dir_ + "/data/darius.pop3locks";
    mailbox::StoreOptions so;
    so.data_dir = dir_ + "/data";
    so.partitions = {{"default", dir_ + "/spool"}};
    auto store = mailbox::Store::open(so);
    ASSERT_TRUE(store.ok()) << store.status().toString();
    store_ = std::move(*store);
  }
  void TearDown() override {
    if (host_) host_->stop();
    if (thread_.joinable()) thread_.join();
    host_.reset();
    service_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Listeners: STLS-capable plaintext, implicit TLS, and plaintext without any TLS.
  void start() {
    host_ =
        std::make_unique<net::ServerHost>(net::ServerHostOptions{.threads = 2,
                                                                 .shutdown_timeout = 2s,
                                                                 .max_connections = 100,
                                                                 .max_connections_per_host = 100});
    auto ns = mailbox::Namespace::create({});
    ASSERT_TRUE(ns.ok());
    service_ = std::make_unique<Pop3Service>("pop3", options_, *users_, store_.get(), *ns,
                                             host_->metrics());
    config::ListenAddress a;
    a.host = "127.0.0.1";
    ASSERT_TRUE(host_->addListener(a, *service_, tls_, false).isOk());
    ASSERT_TRUE(host_->addListener(a, *service_, tls_, true).isOk());
    ASSERT_TRUE(host_->addListener(a, *service_, nullptr, false).isOk());
    auto b = host_->boundListeners();
    auto port = [&](int i) {
      return static_cast<uint16_t>(std::stoi(b[i].address.substr(b[i].address.rfind(':') + 1)));
    };
    port_ = port(0);
    tls_port_ = port(1);
    no_tls_port_ = port(2);
    thread_ = std::thread([this] { host_->run(); });
  }

  // A connected client past the greeting.
  std::unique_ptr<Client> connect(uint16_t port = 0, bool implicit_tls = false) {
    auto c = std::make_unique<Client>(port ? port : port_, implicit_tls);
    EXPECT_EQ(c->line(), "+OK pop.example.org Darius POP3 ready");
    return c;
  }

  // Stages `text` and appends it to `mailbox` (an internal name; created when missing) with
  // `flags`; returns its UID.
  uint32_t deliver(const std::string& mailbox, const std::string& text, uint32_t flags = 0) {
    auto name = mailbox::MailboxName::parse(mailbox);
    EXPECT_TRUE(name.ok());
    if (name->isInbox()) {
      EXPECT_TRUE(store_->ensureInbox(*name).isOk());
    } else if (!store_->list().lookup(*name).ok()) {
      EXPECT_TRUE(store_->create(*name).ok());
    }
    auto staged = store_->stage(store_->defaultPartition(), text);
    EXPECT_TRUE(staged.ok());
    mailbox::AppendRequest r;
    r.message = &*staged;
    r.system_flags = flags;
    auto out = store_->append(*name, std::span<const mailbox::AppendRequest>(&r, 1));
    EXPECT_TRUE(out.ok()) << out.status().toString();
    (void)store_->unstage(*staged);
    return out.ok() ? (*out)[0].uid : 0;
  }
  // A client logged in as alice (USER/PASS on the STLS-less plaintext port).
  std::unique_ptr<Client> loggedIn() {
    auto c = connect(no_tls_port_);
    EXPECT_EQ(c->command("USER alice"), "+OK Send the password");
    std::string r = c->command("PASS secret pass");
    EXPECT_EQ(r.substr(0, 31), "+OK Maildrop locked and ready, ") << r;
    return c;
  }

  std::string dir_;
  std::unique_ptr<mailbox::Store> store_;
  net::TlsContextPtr tls_;
  std::unique_ptr<auth::UserStore> users_;
  Pop3Options options_;
  std::unique_ptr<net::ServerHost> host_;
  std::unique_ptr<Pop3Service> service_;
  std::thread thread_;
  uint16_t port_ = 0, tls_port_ = 0, no_tls_port_ = 0;
};

}  // namespace darius::pop3d::test
