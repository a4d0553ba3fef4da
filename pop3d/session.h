// One POP3 session (RFC 1939, with CAPA and response codes from RFC 2449, STLS from RFC 2595,
// AUTH from RFC 5034 and the SYS/AUTH codes of RFC 3206): a coroutine that reads command
// lines, parses each into a typed Command (pop3d/command.h) and executes it through one
// table of {verb, states, handler}. Replies are queued and flushed when the client has
// nothing more pipelined (RFC 2449 §6.6), so a burst of commands costs one write.
//
// After a successful USER/PASS or AUTH the session locks and snapshots the maildrop (the
// user's INBOX: pop3d/maildrop.h) and enters TRANSACTION (STAT, LIST, RETR, TOP, DELE, RSET,
// NOOP, UIDL); QUIT there is the UPDATE state: DELE'd messages are expunged (phase 1). A
// session that ends any other way changes nothing (RFC 1939 §6). RETR and TOP stream the
// message file through a DotStuffer in bounded chunks; opening the maildrop, reading files and
// expunging run on the host's blocking pool, never on a network thread.
//
// Ownership: the Session holds the connection and, in TRANSACTION, the Maildrop (and so its
// lock) for its lifetime; the SessionEnv (options, user store, mail store, namespace, metrics
// counters) belongs to the Pop3Service and outlives every session.
// Thread-safety: a Session runs on its connection's strand only (blocking steps hop to the
// pool and back, never concurrently). SessionEnv is read-only (counters are atomics), so many
// sessions share it across threads.
#pragma once

#include <array>
#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "auth/admins.h"
#include "auth/sasl.h"
#include "auth/user_store.h"
#include "lib/base/status.h"
#include "lib/log/log.h"
#include "lib/net/connection.h"
#include "mailbox/namespace.h"
#include "mailbox/store.h"
#include "pop3d/command.h"
#include "pop3d/maildrop.h"

namespace darius::pop3d {

struct Pop3Options {
  std::string servername;             // announced in the greeting and at QUIT
  bool allow_plaintext_auth = false;  // USER/PASS, PLAIN, LOGIN without TLS
  std::chrono::milliseconds auth_failure_delay{2000};
  // Longest an unauthenticated session may last, and so also the longest wait for a line.
  std::chrono::milliseconds login_timeout{60000};
  // Inactivity limit in TRANSACTION (RFC 1939 §3 asks for at least 10 minutes).
  std::chrono::milliseconds idle_timeout{std::chrono::minutes(30)};
  UidlFormat uidl_format = UidlFormat::kUidvalidityUid;
  std::string lock_dir;  // <data_dir>/darius.pop3locks
};

// Command lines the reader accepts. RFC 2449 §4 caps a command at 255 octets including CRLF;
// we allow 1024 so a slightly long AUTH initial response or PASS still parses, while a
// runaway client is cut off early. Lines inside an AUTH exchange may be much longer
// (RFC 5034 §4: "arbitrary length"), so the session raises the limit for those.
inline constexpr size_t kMaxCommandLine = 1024;

// What every session of one service shares.
struct SessionEnv {
  const Pop3Options* options = nullptr;
  auth::UserStore* users = nullptr;
  mailbox::Store* store = nullptr;          // null: no maildrop (login is answered SYS/TEMP)
  const mailbox::Namespace* ns = nullptr;   // login name -> INBOX
  const auth::Admins* admins = nullptr;     // who may AUTH PLAIN as another user; null: nobody
  std::string_view service;  // "pop3", "pop3s": log and metrics label
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

  // Limits on misbehaviour before the session closes the connection.
  static constexpr int kMaxBadCommands = 10;
  static constexpr int kMaxAuthFailures = 3;

 private:
  // RFC 1939 §3. UPDATE has no commands of its own (it is what QUIT does in TRANSACTION).
  enum class State : uint8_t { kAuthorization = 1, kTransaction = 2 };
  enum class Next : uint8_t { kContinue, kClose };
  using Handler = asio::awaitable<Next> (Session::*)(const Command&);
  struct Entry {
    Verb verb;
    uint8_t states;  // bitwise OR of State values in which the command is valid
    Handler handler;
  };
  static const Entry kCommands[];

  asio::awaitable<Next> execute(const Command& cmd);

  // Handlers, one per table row.
  asio::awaitable<Next> cmdCapa(const Command& cmd);
  asio::awaitable<Next> cmdUser(const Command& cmd);
  asio::awaitable<Next> cmdPass(const Command& cmd);
  asio::awaitable<Next> cmdAuth(const Command& cmd);
  asio::awaitable<Next> cmdStls(const Command& cmd);
  asio::awaitable<Next> cmdNoop(const Command& cmd);
  asio::awaitable<Next> cmdQuit(const Command& cmd);
  asio::awaitable<Next> cmdStat(const Command& cmd);
  asio::awaitable<Next> cmdList(const Command& cmd);
  asio::awaitable<Next> cmdUidl(const Command& cmd);
  asio::awaitable<Next> cmdRetr(const Command& cmd);
  asio::awaitable<Next> cmdTop(const Command& cmd);
  asio::awaitable<Next> cmdDele(const Command& cmd);
  asio::awaitable<Next> cmdRset(const Command& cmd);

  // The message `msgno` if it exists and is not deleted; otherwise answers -ERR and null.
  const Maildrop::Message* messageOrError(uint32_t msgno);
  // Sends +OK and the message (TOP: header and `body_lines` lines) dot-stuffed, streamed from
  // its file. kClose when the file failed after the +OK (the reply cannot be taken back).
  asio::awaitable<Next> sendMessage(const Maildrop::Message& m,
                                    std::optional<uint32_t> body_lines);

  // The rest of an AUTH exchange after the mechanism was accepted.
  asio::awaitable<Next> saslExchange(auth::SaslServer& server, std::string_view mechanism,
                                     std::optional<std::string> initial_response);
  // Sends one SASL challenge and returns the decoded client response. nullopt when the
  // exchange ends instead (cancel, bad base64, overlong line: already answered; or the
  // connection is gone); *next then says whether the session goes on.
  asio::awaitable<std::optional<std::string>> challenge(std::string_view data, Next* next);
  // Successful authentication of `user` (by `how`): where the maildrop would be opened.
  asio::awaitable<Next> authenticated(const std::string& user, std::string_view how);
  // A failed authentication: waits auth_failure_delay for a wrong password, answers, and
  // closes after kMaxAuthFailures.
  asio::awaitable<Next> authFailed(const base::Status& why);
  // Answers a command that was not accepted and closes after kMaxBadCommands.
  Next badCommand(std::string_view text);

  void reply(std::string_view line);
  bool plaintextAllowed() const;
  auth::SaslContext saslContext() const;
  std::string_view stateName() const;
  asio::awaitable<void> sleep(std::chrono::milliseconds d);

  const SessionEnv& env_;
  std::shared_ptr<net::Connection> conn_;
  log::Context log_;
  State state_ = State::kAuthorization;
  // USER's name, valid only for the command right after it (RFC 1939 §7: PASS "may only be
  // given ... immediately after a successful USER command").
  std::optional<std::string> pending_user_;
  std::optional<std::string> user_for_pass_;
  int bad_commands_ = 0;
  int auth_failures_ = 0;
  std::unique_ptr<Maildrop> maildrop_;  // in TRANSACTION
};

}  // namespace darius::pop3d
