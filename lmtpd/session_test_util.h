// Test support for lmtpd's session tests: a blocking line client (plaintext, then TLS after
// STARTTLS) and a fixture that runs the real LmtpService behind a real ServerHost on loopback,
// over a real UserStore and a real mail Store in a temporary directory.
//
// Ownership: the fixture owns everything it starts and removes the directory at TearDown.
// Thread-safety: the client and the fixture are used from the test thread; the host runs on
// its own thread.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "lib/net/server_host.h"
#include "lmtpd/lmtp_service.h"
#include "mailbox/store.h"

namespace darius::lmtpd::test {

using namespace std::chrono_literals;

// A line-oriented client: plaintext, then optionally TLS after STARTTLS.
class Client {
 public:
  explicit Client(uint16_t port) : stream_(io_, ctx_) {
    stream_.next_layer().connect({asio::ip::make_address("127.0.0.1"), port});
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
  // All lines of one (possibly multi-line) reply.
  std::vector<std::string> reply() {
    std::vector<std::string> out;
    do {
      out.push_back(line());
    } while (out.back().size() > 3 && out.back()[3] == '-');
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


class LmtpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/darius-lmtp-XXXXXX";
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
    ASSERT_TRUE(users_->add("alice", "pw-alice").isOk());
    ASSERT_TRUE(users_->add("bob@example.org", "pw-bob").isOk());
    ASSERT_TRUE(users_->add("bob", "pw-other-bob").isOk());
    options_.servername = "lmtp.example.org";
    options_.max_message_size = 10000;
    options_.delivery_threads = 4;
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
    // The service first: its destructor joins the delivery pool, whose threads may still be
    // dropping their copy of a session's strand executor after handing a result back; the
    // io_context that strand lives in must outlive them (dariusd destroys in this order too).
    service_.reset();
    host_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Listeners: STARTTLS-capable, and plaintext without any TLS.
  void start() {
    host_ =
        std::make_unique<net::ServerHost>(net::ServerHostOptions{.threads = 2,
                                                                 .shutdown_timeout = 2s,
                                                                 .max_connections = 100,
                                                                 .max_connections_per_host = 100});
    std::unique_ptr<mailbox::DuplicateDb> dups;
    if (duplicate_window_.count() > 0) {
      mailbox::DuplicateDbOptions d;
      d.path = dir_ + "/data/duplicates.db";
      d.window = duplicate_window_;
      auto db = mailbox::DuplicateDb::open(d);
      ASSERT_TRUE(db.ok()) << db.status().toString();
      dups = std::move(*db);
    }
    auto ns = mailbox::Namespace::create(namespace_);
    ASSERT_TRUE(ns.ok());
    service_ = std::make_unique<LmtpService>("lmtp", options_, *users_, *store_, std::move(*ns),
                                             std::move(dups), host_->metrics());
    config::ListenAddress a;
    a.host = "127.0.0.1";
    ASSERT_TRUE(host_->addListener(a, *service_, tls_, false).isOk());
    ASSERT_TRUE(host_->addListener(a, *service_, nullptr, false).isOk());
    auto b = host_->boundListeners();
    auto port = [&](int i) {
      return static_cast<uint16_t>(std::stoi(b[i].address.substr(b[i].address.rfind(':') + 1)));
    };
    port_ = port(0);
    no_tls_port_ = port(1);
    thread_ = std::thread([this] { host_->run(); });
  }

  std::unique_ptr<Client> connect(uint16_t port = 0) {
    auto c = std::make_unique<Client>(port ? port : port_);
    EXPECT_EQ(c->line(), "220 lmtp.example.org LMTP Darius ready");
    return c;
  }
  // Connected and past LHLO.
  std::unique_ptr<Client> greeted(uint16_t port = 0) {
    auto c = connect(port);
    c->send("LHLO client.example\r\n");
    EXPECT_EQ(c->reply().back(), "250 SIZE 10000");
    return c;
  }

  // The messages of `mailbox` (internal name, e.g. "user/alice"), in UID order; "" for a
  // message whose file cannot be read, and no entry at all when the mailbox does not exist.
  std::vector<std::string> messages(const std::string& mailbox) {
    std::vector<std::string> out;
    auto name = mailbox::MailboxName::parse(mailbox);
    if (!name.ok()) return out;
    auto m = store_->openMailbox(*name);
    if (!m.ok()) return out;
    for (size_t i = 0; i < m->mailbox->recordCount(); ++i) {
      auto r = m->mailbox->record(i);
      if (!r.ok() || !r->live()) continue;
      std::ifstream f(m->mailbox->messagePath(r->uid), std::ios::binary);
      out.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }
    return out;
  }
  // The message without the trace fields this server added (Return-Path, Received).
  static std::string withoutTrace(const std::string& m) {
    size_t at = m.find("\r\n", m.find("Received: ")) + 2;
    while (at < m.size() && m[at] == '\t') at = m.find("\r\n", at) + 2;
    return m.substr(at);
  }

  std::string dir_;
  std::unique_ptr<mailbox::Store> store_;
  std::chrono::seconds duplicate_window_{0};
  mailbox::NamespaceOptions namespace_;
  net::TlsContextPtr tls_;
  std::unique_ptr<auth::UserStore> users_;
  LmtpOptions options_;
  std::unique_ptr<net::ServerHost> host_;
  std::unique_ptr<LmtpService> service_;
  std::thread thread_;
  uint16_t port_ = 0, no_tls_port_ = 0;
};

}  // namespace darius::lmtpd::test
