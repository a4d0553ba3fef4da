// One LMTP session (RFC 2033; SMTP command semantics from RFC 5321, PIPELINING from RFC 2920,
// ENHANCEDSTATUSCODES from RFC 2034/3463, SIZE from RFC 1870, 8BITMIME from RFC 6152,
// CHUNKING and BINARYMIME from RFC 3030, SMTPUTF8 from RFC 6531, STARTTLS from RFC 3207): a
// coroutine that reads command lines, parses each into a typed Command (lmtpd/command.h) and
// executes it through one table of {verb, states, handler}. Every reply carries an enhanced
// status code except the greeting and the LHLO reply, which RFC 2034 §3 exempts. Replies are
// queued and flushed whenever no pipelined input is waiting (RFC 2920 §3.2), so a pipelined
// MAIL/RCPT/.../DATA group costs one write.
//
// A message arrives with DATA or BDAT into a MessageData (lmtpd/message_data.h) that already
// holds the trace fields, is checked, and is handed with the recipients to the Deliverer on
// a delivery thread (the fsyncs never block a network thread); then one reply per accepted
// recipient, in RCPT order (RFC 2033 §4.2). A message that fails (too big, a NUL, an overlong
// line) is read to its end anyway and answered per recipient; a connection lost before the
// end delivers nothing (nothing is staged before the end).
//
// Ownership: the Session holds the connection for its lifetime; the SessionEnv belongs to
// the LmtpService and outlives every session. Thread-safety: a Session runs on its
// connection's strand only, except the Deliverer call, which runs on a delivery thread while
// the session waits for it; SessionEnv is read-only (counters are atomics).
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
#include "lmtpd/delivery.h"
#include "lmtpd/message_data.h"

namespace darius::lmtpd {

struct LmtpOptions {
  std::string servername;                   // in the greeting, the LHLO reply and 221/421
  uint64_t max_message_size = 64ull << 20;  // SIZE (RFC 1870); max_literal_size
  size_t max_recipients = 1000;             // per transaction; more get 452 4.5.3
  size_t max_data_line = 64 * 1024;         // lmtp_max_line_length: longest DATA line
  unsigned delivery_threads = 16;           // lmtp_delivery_threads
  int delivery_nice = 10;                   // lmtp_delivery_nice
  bool vrfy_enabled = false;                // VRFY answers 252 when on, 502 when off
  // lmtp_strict_rcpt: RCPT TO:<local-part> without a domain is refused with 501 5.1.3, as
  // RFC 5321 has it, instead of naming a user of the default domain.
  bool strict_rcpt = false;
  // lmtp_over_quota_perm_failure: a recipient over quota gets 552 5.2.2 (permanent) when set,
  // 452 4.2.2 (the MTA retries) when not (RFC 3463 X.2.2, Cyrus's option).
  bool over_quota_permanent = true;
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};  // per read (idle_timeout)
};

// Command lines the reader accepts: RFC 5321 §4.5.3.1.4 asks for at least 512 octets and
// §4.5.3.1.3 allows 256-octet paths plus parameters; 2048 leaves room without inviting abuse.
inline constexpr size_t kMaxCommandLine = 2048;

// What every session of one service shares.
struct SessionEnv {
  const LmtpOptions* options = nullptr;
  auth::UserStore* users = nullptr;
  Deliverer* deliverer = nullptr;
  asio::thread_pool* delivery_pool = nullptr;  // null: deliver inline (unit tests)
  std::string_view service;  // "lmtp": log and metrics label
  // darius_commands_total{service, command}, indexed by Verb (kUnknown included).
  std::array<std::atomic<uint64_t>*, kVerbCount> commands{};
  // darius_lmtp_deliveries_total{outcome}, indexed by DeliveryOutcome::Kind.
  std::array<std::atomic<uint64_t>*, 5> deliveries{};
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
    std::string path;    // as the client wrote it, for the per-recipient replies
    std::string user;    // the user store name it resolved to
    std::string detail;  // the subaddress after '+', "" if none
  };

  asio::awaitable<Next> execute(const Command& cmd);

  // Handlers, one per table row.
  asio::awaitable<Next> cmdLhlo(const Command& cmd);
  asio::awaitable<Next> cmdMail(const Command& cmd);
  asio::awaitable<Next> cmdRcpt(const Command& cmd);
  asio::awaitable<Next> cmdData(const Command& cmd);
  asio::awaitable<Next> cmdBdat(const Command& cmd);
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
  void replyMailboxFull(std::string_view path);  // 552 5.2.2 or 452 4.2.2
  void resetTransaction();
  // A MessageData for the transaction, with the trace fields already in it.
  std::unique_ptr<MessageData> newMessage();
  // The message is complete: delivers it (or answers its problem) with one reply per
  // recipient, and ends the transaction.
  asio::awaitable<Next> finishMessage(MessageData& message);
  // The same reply for every recipient (a message that failed as a whole).
  void replyAll(std::string_view code, std::string_view text);

  const SessionEnv& env_;
  std::shared_ptr<net::Connection> conn_;
  log::Context log_;
  State state_ = State::kFresh;
  int errors_ = 0;
  std::string helo_;          // the LHLO argument, for the Received field
  uint64_t transactions_ = 0;  // messages finished, for the Received id
  // The open transaction.
  std::string sender_;
  uint64_t declared_size_ = 0;  // MAIL FROM's SIZE= (RFC 1870), 0 when not given
  BodyType body_ = BodyType::kUnspecified;
  bool smtputf8_ = false;
  std::vector<Recipient> recipients_;
  std::unique_ptr<MessageData> chunks_;  // BDAT: the message so far
};

}  // namespace darius::lmtpd
