// One LMTP session (RFC 2033; SMTP command semantics from RFC 5321, PIPELINING from RFC 2920,
// ENHANCEDSTATUSCODES from RFC 2034/3463, SIZE from RFC 1870, 8BITMIME from RFC 6152,
// STARTTLS from RFC 3207): a coroutine that reads command lines, parses each into a typed
// Command (lmtpd/command.h) and executes it through one table of {verb, states, handler}.
// Every reply carries an enhanced status code except the greeting and the LHLO reply, which
// RFC 2034 §3 exempts. Replies are queued and flushed whenever no pipelined input is waiting
// (RFC 2920 §3.2), so a pipelined MAIL/RCPT/.../DATA group costs one write.
//
// What exists now is the envelope: LHLO, MAIL, RCPT (checked against the user store), RSET,
// NOOP, VRFY, STARTTLS, QUIT. DATA is refused with 451 4.3.2 because there is no mailbox
// store to deliver into yet (see Session::cmdData); delivery, Sieve and duplicate
// suppression come with the store, into the same table.
//
// Ownership: the Session holds the connection for its lifetime; the SessionEnv belongs to
// the LmtpService and outlives every session. Thread-safety: a Session runs on its
// connection's strand only; SessionEnv is read-only (counters are atomics).
#pragma once

#include <array>
#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "auth/user_store.h"
#include "lib/log/log.h"
#include "lib/net/connection.h"
#include "lmtpd/command.h"

namespace darius::lmtpd {

struct LmtpOptions {
  std::string servername;                   // in the greeting, the LHLO reply and 221/421
  uint64_t max_message_size = 64ull << 20;  // SIZE (RFC 1870); max_literal_size
  size_t max_recipients = 1000;             // per transaction; more get 452 4.5.3
  bool vrfy_enabled = false;                // VRFY answers 252 when on, 502 when off
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};  // per read (idle_timeout)
};

// Command lines the reader accepts: RFC 5321 §4.5.3.1.4 asks for at least 512 octets and
// §4.5.3.1.3 allows 256-octet paths plus parameters; 2048 leaves room without inviting abuse.
inline constexpr size_t kMaxCommandLine = 2048;

// What every session of one service shares.
struct SessionEnv {
  const LmtpOptions* options = nullptr;
  auth::UserStore* users = nullptr;
  std::string_view service;  // "lmtp": log and metrics label
  // darius_commands_total{service, command}, indexed by Verb (kUnknown included).
  std::array<std::atomic<uint64_t>*, kVerbCount> commands{};
};

class Session {
 public:
  Session(const SessionEnv& env, std::shared_ptr<net::Connection> conn, uint64_t id);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Greets, serves commands until QUIT, an error, a timeout or shutdown. Never throws.
  asio::awaitable<void> run();

  // Protocol errors (unknown commands, bad syntax, bad sequence, overlong lines) tolerated
  // before the session answers 421 and closes. Refused recipients do not count.
  static constexpr int kMaxErrors = 20;

 private:
  // Where the session is in RFC 5321 §3.3's sequence. A transaction is kMail or kRcpt.
  enum class State : uint8_t {
    kFresh = 1,    // before LHLO (and again after STARTTLS, RFC 3207 §4.2)
    kGreeted = 2,  // LHLO done, no transaction
    kMail = 4,     // MAIL accepted, no recipient yet
    kRcpt = 8,     // at least one RCPT accepted
  };
  enum class Next : uint8_t { kContinue, kClose };
  using Handler = asio::awaitable<Next> (Session::*)(const Command&);
  struct Entry {
    Verb verb;
    uint8_t states;  // bitwise OR of the States in which the command is in sequence
    Handler handler;
  };
  static const Entry kCommands[];

  struct Recipient {
    std::string path;  // as the client wrote it, for the per-recipient replies
    std::string user;  // the user store name it resolved to
  };

  asio::awaitable<Next> execute(const Command& cmd);

  // Handlers, one per table row.
  asio::awaitable<Next> cmdLhlo(const Command& cmd);
  asio::awaitable<Next> cmdMail(const Command& cmd);
  asio::awaitable<Next> cmdRcpt(const Command& cmd);
  asio::awaitable<Next> cmdData(const Command& cmd);
  asio::awaitable<Next> cmdRset(const Command& cmd);
  asio::awaitable<Next> cmdNoop(const Command& cmd);
  asio::awaitable<Next> cmdQuit(const Command& cmd);
  asio::awaitable<Next> cmdVrfy(const Command& cmd);
  asio::awaitable<Next> cmdStartTls(const Command& cmd);
  asio::awaitable<Next> cmdHeloEhlo(const Command& cmd);

  // The 503 text for a command that is out of sequence in the current state.
  std::string sequenceError(Verb verb) const;
  // Answers a protocol error; after kMaxErrors answers 421 instead and closes.
  Next error(std::string_view reply_line);
  void reply(std::string_view line);
  void resetTransaction();

  const SessionEnv& env_;
  std::shared_ptr<net::Connection> conn_;
  log::Context log_;
  State state_ = State::kFresh;
  int errors_ = 0;
  // The open transaction.
  std::string sender_;
  BodyType body_ = BodyType::kUnspecified;
  std::vector<Recipient> recipients_;
};

}  // namespace darius::lmtpd
