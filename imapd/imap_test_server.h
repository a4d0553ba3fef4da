// Test support for the session tests: a real ServerHost with the real ImapService on
// loopback (a plaintext "imap" listener with STARTTLS and an implicit-TLS "imaps" one), a
// user store in a temporary directory, and a small blocking IMAP client with timeouts, so a
// broken server fails a test instead of hanging it.
//
// Ownership: the fixture owns the host, the services, the store and the directory; clients
// own their own io_context. Thread-safety: the host runs on its own threads; everything else
// is used from the test thread only.
#pragma once

#include "imapd/commands/commands.h"

#include <gtest/gtest.h>

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "auth/user_store.h"
#include "imapd/imap_service.h"
#include "lib/net/server_host.h"

namespace darius::imapd::testing {

class ImapClient {
 public:
  // Connects to 127.0.0.1:port; with implicit_tls, completes a TLS handshake first
  // (verifying the server against ca_file).
  ImapClient(uint16_t port, const std::string& ca_file, bool implicit_tls);
  ImapClient(const ImapClient&) = delete;
  ImapClient& operator=(const ImapClient&) = delete;

  // Sends raw bytes (errors are ignored: the server may have closed on purpose).
  void send(std::string_view bytes);
  // The next line without its CRLF; "<eof>" when the server closed, "<timeout>" after 10 s.
  std::string line();
  // Sends "<command>\r\n" and returns the lines up to and including the one that starts with
  // its tag (the first word), or up to "<eof>"/"<timeout>".
  std::vector<std::string> command(std::string_view command);
  // STARTTLS's handshake, after the tagged OK has been read. False on failure.
  bool startTls();
  SSL* ssl() { return stream_.native_handle(); }

 private:
  template <typename Op>
  bool run(Op op);

  asio::io_context io_;
  asio::ssl::context ctx_;
  asio::ssl::stream<asio::ip::tcp::socket> stream_;
  asio::streambuf buf_;
  bool tls_ = false;
};

class ImapServerTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Starts the host. `config` is appended to the test defaults (plaintext auth refused,
  // 50 ms failure delay, servername test.example, 2K lines, 4K literals).
  void start(const std::string& config = "", bool tls_available = true);
  std::unique_ptr<ImapClient> plain() {
    return std::make_unique<ImapClient>(plain_port_, cert_, false);
  }
  std::unique_ptr<ImapClient> tls() { return std::make_unique<ImapClient>(tls_port_, cert_, true); }
  // A plaintext client that has read the greeting.
  std::unique_ptr<ImapClient> greeted();

  std::string dir_;
  std::string cert_;
  std::unique_ptr<auth::UserStore> users_;
  std::unique_ptr<net::ServerHost> host_;
  std::unique_ptr<ImapService> imap_;
  std::unique_ptr<ImapService> imaps_;
  std::thread thread_;
  uint16_t plain_port_ = 0;
  uint16_t tls_port_ = 0;
};

// The capability list of a plaintext connection before login with the test defaults.
// What every session advertises with the test config's max_literal_size (4K).
inline const std::string kBaseCaps = std::string(kStaticCapabilities) + " APPENDLIMIT=4096";

}  // namespace darius::imapd::testing
