// Session: one IMAP connection from greeting to BYE. It owns the connection, the session's
// log context, its state (RFC 9051 §3: not authenticated, authenticated, selected, logout)
// and the authenticated user, and runs the command loop: read a command line, complete it
// with its literals (RFC 9051 §4.3, RFC 7888), look it up in the CommandTable, check the
// state, parse, execute, write the tagged reply and flush. Pipelined commands are taken from
// the input buffer as they come and run one at a time, in order.
//
// The execute functions of the commands (imapd/commands/) see the session through the small
// API in the "for commands" section: state changes, untagged output, continuation requests,
// reading a client line in the middle of a command (SASL), and the failure delay.
//
// Ownership: created and run by ImapService::serve(); borrows everything in SessionEnv, which
// the service keeps alive. Thread-safety: none needed; a session runs on its connection's
// strand and nothing else touches it.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "auth/sasl.h"
#include "auth/user_store.h"
#include "imapd/command_table.h"
#include "lib/base/result.h"
#include "lib/log/log.h"
#include "lib/net/connection.h"
#include "lib/proto/command_buffer.h"

namespace darius::imapd {

// The configuration a session runs with (read once by the service from the Config).
struct SessionSettings {
  std::string servername;                   // in the greeting
  bool allow_plaintext_auth = false;        // LOGIN and PLAIN without TLS
  bool starttls_available = false;          // the service has a TLS context for STARTTLS
  uint64_t max_line_length = 64 * 1024;     // as the connection enforces it
  uint64_t max_literal_size = 64ull << 20;  // all literals of one command together
  // Before authentication only LOGIN, AUTHENTICATE and ID take strings, none of them long:
  // a stranger may not make the server buffer megabytes per connection.
  uint64_t max_literal_before_auth = 16 * 1024;
  std::chrono::milliseconds login_timeout{60000};
  std::chrono::milliseconds idle_timeout{30 * 60000};
  std::chrono::milliseconds auth_failure_delay{2000};
  int max_bad_commands = 10;  // consecutive BAD replies tolerated before BYE
};

// What a session borrows from its service; all of it outlives the session.
struct SessionEnv {
  const SessionSettings* settings = nullptr;
  const CommandTable* commands = nullptr;
  auth::UserStore* users = nullptr;
  // Metrics: one counter per entry of commands->all() (same order), and one for names that
  // are not in the table. Null: not counted (tests).
  const std::vector<std::atomic<uint64_t>*>* command_counters = nullptr;
  std::atomic<uint64_t>* unknown_command_counter = nullptr;
};

class Session {
 public:
  Session(std::shared_ptr<net::Connection> conn, SessionEnv env, log::Context log);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Greets the client and serves commands until LOGOUT, a BYE or the end of the connection.
  asio::awaitable<void> run();

  // --- For commands ---
  State state() const { return state_; }
  const SessionSettings& settings() const { return *env_.settings; }
  net::Connection& connection() { return *conn_; }
  const net::Connection& connection() const { return *conn_; }
  auth::UserStore& users() { return *env_.users; }
  const log::Context& logContext() const { return log_; }
  const std::string& user() const { return user_; }
  // The SASL view of this connection: TLS state, channel binding, plaintext policy.
  auth::SaslContext saslContext() const;

  // Enters the authenticated state as `user`: switches to idle_timeout and logs the login
  // (`method`: "LOGIN" or the SASL mechanism).
  void loggedIn(std::string user, std::string_view method);
  // Enters the logout state: the session ends once the current reply has been flushed.
  void logout() { state_ = State::kLogout; }

  // Queues "* <text>\r\n".
  void writeUntagged(std::string_view text);
  // Sends "+ <text>\r\n" and flushes (a command continuation request).
  asio::awaitable<base::Status> sendContinuation(std::string_view text);
  // Reads one line in the middle of a command (a SASL response). kTooBig: the line was too
  // long and has been skipped, the command should answer BAD [TOOBIG]. Any other error has
  // been dealt with (BYE sent if there was a reason to, session in the logout state): the
  // command returns Reply::none().
  asio::awaitable<base::Result<std::string>> readClientLine();
  // Waits auth_failure_delay (before a failed authentication is answered).
  asio::awaitable<void> failureDelay();

  // ENABLE (RFC 5161): true if `extension` was not enabled before and now is.
  bool enable(std::string_view extension);
  bool isEnabled(std::string_view extension) const;

 private:
  // Reads and runs one command (or answers one bad line).
  asio::awaitable<void> serveOne();
  // Reads the literal `lit` announced at the end of `cmd`, and the line after it; sets *next
  // to the literal that line announces. False if the command has been answered already
  // (too big, refused before the continuation) or the session is ending.
  asio::awaitable<bool> readLiteral(proto::CommandBuffer& cmd, proto::LiteralHeader lit,
                                    std::optional<proto::LiteralHeader>* next);
  // Looks up tag and command; on failure, the reply to send (with the tag to send it to).
  struct Lookup {
    std::string tag;
    bool has_name = false;  // a syntactically valid command name was found
    const CommandSpec* spec = nullptr;
    Reply error;  // meaningful when spec is null
  };
  Lookup lookup(ArgParser& p) const;
  // Bumps the metric of the command (null: an unknown one).
  void count(const CommandSpec* spec) const;
  asio::awaitable<void> execute(const std::string& text);
  // Writes "<tag> <reply>" and applies the bad-command limit.
  void writeTagged(std::string_view tag, const Reply& reply);
  void noteBad();
  // Answers a failed read: BYE for a timeout or shutdown, and ends the session.
  asio::awaitable<void> readFailed(base::Status status);
  asio::awaitable<void> flushOrEnd();
  uint64_t literalLimit() const;

  std::shared_ptr<net::Connection> conn_;
  SessionEnv env_;
  log::Context log_;
  State state_ = State::kNotAuthenticated;
  std::string user_;
  std::vector<std::string> enabled_;  // upper case
  int consecutive_bad_ = 0;
};

}  // namespace darius::imapd
