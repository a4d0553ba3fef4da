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

#include "auth/admins.h"
#include "auth/sasl.h"
#include "auth/user_store.h"
#include "imapd/change_hub.h"
#include "imapd/command_table.h"
#include "imapd/search/search_context.h"
#include "imapd/selected.h"
#include "lib/base/result.h"
#include "lib/log/log.h"
#include "lib/net/connection.h"
#include "lib/proto/command_buffer.h"
#include "lib/proto/sequence_set.h"
#include "mailbox/namespace.h"
#include "mailbox/store.h"

namespace darius::imapd {

namespace sort {
class SortKeyCache;
}

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
  uint64_t max_append_size = 64ull << 20;  // APPENDLIMIT (RFC 7889): one message
  int quota_warn_percent = 90;  // SELECT's OK [ALERT] from this share of a limit; 0: never
  // Output is flushed to the socket once this much is queued, so that a FETCH of 10,000
  // bodies never holds more than about this much response in memory.
  size_t flush_threshold = 256 * 1024;
  // The search index (mailbox/search_index.h): used by SEARCH TEXT/BODY; a SEARCH indexes up
  // to search_index_catch_up missing messages itself and leaves a larger backlog to dariusd's
  // indexer (reading those messages meanwhile).
  bool search_index = true;
  size_t search_index_catch_up = 5000;
  // Live SEARCH contexts (RFC 5267 §4.3.1) one session may keep; beyond, NOUPDATE.
  size_t max_search_contexts = 8;
  // Threads one SEARCH may use to check candidate messages (search_eval.h SearchScope).
  size_t search_threads = 1;
};

// What a session borrows from its service; all of it outlives the session.
struct SessionEnv {
  const SessionSettings* settings = nullptr;
  const CommandTable* commands = nullptr;
  auth::UserStore* users = nullptr;
  const auth::Admins* admins = nullptr;      // null: no admins (unit tests)
  mailbox::Store* store = nullptr;           // null: no mailbox commands (unit tests)
  const mailbox::Namespace* ns = nullptr;
  ChangeHub* hub = nullptr;                  // null: no IDLE wake-ups (changes seen per command)
  sort::SortKeyCache* sort_keys = nullptr;   // null: every SORT reads its keys
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
  // (`method`: "LOGIN" or the SASL mechanism; `authenticated_as`: whose password was checked
  // when an admin acts as `user`, else empty).
  void loggedIn(std::string user, std::string_view method, std::string_view authenticated_as = {});
  // The logged-in user is an admin (`admins` option) of some scope / of the mailboxes of
  // `domain` ("" the default domain). False before login and for a login that is no user id.
  bool isAdmin() const;
  bool administers(std::string_view domain) const;
  // The `admins` list (null: none), for questions about other ids (LISTRIGHTS).
  const auth::Admins* admins() const { return env_.admins; }
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

  // --- Mailboxes (authenticated and selected states) ---
  mailbox::Store& store() { return *env_.store; }
  bool hasStore() const { return env_.store != nullptr; }
  const mailbox::Namespace& ns() const { return *env_.ns; }
  // The login name as a mailbox owner; null when it cannot own mailboxes (then only shared
  // mailboxes and other users' are reachable).
  const mailbox::UserName* userName() const { return user_name_ ? &*user_name_ : nullptr; }
  // Makes the user's INBOX if it does not exist yet (Cyrus's autocreate), off the I/O thread.
  asio::awaitable<void> prepareMailboxes();

  SelectedMailbox* selected() { return selected_.get(); }
  // Enters the selected state with `mailbox` (replacing any selected one) and subscribes to
  // its changes for IDLE.
  void select(std::unique_ptr<SelectedMailbox> mailbox);
  // Back to the authenticated state.
  void unselect();
  UpdateStyle updateStyle() const;
  // Refreshes the selected mailbox and queues the untagged updates owed (expunges only when
  // `allow_expunge`). Nothing when no mailbox is selected.
  asio::awaitable<void> sendUpdates(bool allow_expunge);
  // Flushes once the queued output passes flush_threshold: long responses stream.
  asio::awaitable<base::Status> flushIfLarge();
  // Woken by the ChangeHub when the selected mailbox changes (IDLE waits on it).
  Waker& waker() { return *waker_; }
  bool hasChangeHub() const { return env_.hub != nullptr; }
  // The service's sort keys of messages sorted before (sort/sort_key_cache.h); may be null.
  sort::SortKeyCache* sortKeys() const { return env_.sort_keys; }
  // Runs `f` on the blocking pool (disk writes and their fsyncs), as connection().offload.
  template <typename F>
  asio::awaitable<std::invoke_result_t<F&>> blocking(F f) {
    co_return co_await conn_->offload(std::move(f));
  }
  // RFC 5182 SEARCHRES: the last SEARCH ... SAVE result, as UIDs.
  proto::SequenceSet& savedResult() { return saved_result_; }
  // RFC 5267 §4.3: the live SEARCH contexts of the selected mailbox (none when not selected).
  search::SearchContexts& searchContexts() { return *contexts_; }

  // ENABLE (RFC 5161): true if `extension` was not enabled before and now is.
  bool enable(std::string_view extension);
  bool isEnabled(std::string_view extension) const;
  // RFC 7162 §3.1: a CONDSTORE enabling command (FETCH MODSEQ, SELECT (CONDSTORE), STORE
  // UNCHANGEDSINCE, SEARCH MODSEQ, STATUS HIGHESTMODSEQ) turns MODSEQ on in later FETCH
  // responses; the first one, if a mailbox is selected, also queues that mailbox's
  // "OK [HIGHESTMODSEQ n]", which the command's own responses then follow.
  void useCondstore();

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
  // sendUpdates() when search contexts are live (RFC 5267 §4.3).
  asio::awaitable<void> sendContextUpdates(bool allow_expunge, std::string& out);
  // The selected mailbox cannot be read any more: BYE and the logout state.
  void mailboxLost(const base::Status& s);
  uint64_t literalLimit() const;

  std::shared_ptr<net::Connection> conn_;
  SessionEnv env_;
  log::Context log_;
  State state_ = State::kNotAuthenticated;
  std::string user_;
  std::vector<std::string> enabled_;  // upper case
  int consecutive_bad_ = 0;
  std::optional<mailbox::UserName> user_name_;
  std::unique_ptr<SelectedMailbox> selected_;
  std::shared_ptr<Waker> waker_;
  std::unique_ptr<ChangeHub::Subscription> subscription_;
  proto::SequenceSet saved_result_;
  std::unique_ptr<search::SearchContexts> contexts_;
  bool condstore_used_ = false;
  bool bye_sent_ = false;  // a BYE went out mid-command: no tagged reply follows
};

}  // namespace darius::imapd
