// The one IMAP command table: for each command name, the states it is allowed in, its
// pipelining flags, and a parse function that turns the arguments into a typed Args value
// bound to the command's execute function. Each command lives in its own file under
// imapd/commands/ and contributes one CommandSpec (made with makeCommand); the table lists
// them. The session looks a command up, checks the state, parses, then executes; a command
// never parses while executing, and parsers can be tested without a session.
//
// Ownership: the ImapService owns its table (immutable after construction) and sessions
// borrow it. Thread-safety: a built table is read-only and shared by all sessions.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/proto/arg_parser.h"

namespace darius::imapd {

class Session;

// Every command parses with the wire grammar of lib/proto; the one name all of them use.
using proto::ArgParser;

// RFC 9051 §3: the connection states.
enum class State : uint8_t { kNotAuthenticated, kAuthenticated, kSelected, kLogout };
std::string_view stateName(State s);

// A set of states, one bit per State.
using StateSet = uint8_t;
constexpr StateSet stateBit(State s) { return static_cast<StateSet>(1u << static_cast<int>(s)); }
inline constexpr StateSet kNotAuthenticatedOnly = stateBit(State::kNotAuthenticated);
inline constexpr StateSet kAuthenticatedOnly = stateBit(State::kAuthenticated);
inline constexpr StateSet kAfterLogin =
    stateBit(State::kAuthenticated) | stateBit(State::kSelected);
inline constexpr StateSet kAnyState = kNotAuthenticatedOnly | kAfterLogin;

// Pipelining rules (RFC 9051 §5.5). The session reads pipelined commands as they arrive but
// runs them one at a time, in order, so every rule below holds by construction today; the
// flags record what a concurrent executor (FETCH/STORE/SEARCH in parallel) must keep true.
enum CommandFlag : uint32_t {
  kNoFlags = 0,
  // Must not start while another command is in flight, and nothing may start until it ends:
  // it changes the connection, the authentication or the selected mailbox (STARTTLS,
  // AUTHENTICATE, LOGIN, LOGOUT; later SELECT, EXAMINE, CLOSE, UNSELECT, IDLE).
  kExclusive = 1u << 0,
};

// The tagged completion of a command (RFC 9051 §7.1).
struct Reply {
  enum class Kind : uint8_t { kOk, kNo, kBad, kNone };
  Kind kind = Kind::kOk;
  std::string code;  // response code without brackets ("AUTHENTICATIONFAILED"), or empty
  std::string text;
  // FETCH, STORE and SEARCH by sequence number: no EXPUNGE may go out with this reply
  // (RFC 9051 §7.5.1), so the updates sent before it leave expunges pending.
  bool hold_expunges = false;
  // Runs after the reply has been flushed (STARTTLS upgrades the connection there).
  asio::awaitable<void> (*then)(Session&) = nullptr;

  static Reply ok(std::string text, std::string code = {});
  static Reply no(std::string text, std::string code = {});
  static Reply bad(std::string text, std::string code = {});
  // No tagged reply at all: the connection is gone or the session already said BYE.
  static Reply none();

  // "OK [CODE] text" (without tag and CRLF).
  std::string format() const;
};

// A parsed command: typed arguments bound to the execute function of their command.
class PreparedCommand {
 public:
  virtual ~PreparedCommand() = default;
  virtual asio::awaitable<Reply> execute(Session& session) = 0;
};

// Parses the arguments after the command name (the parser stands just after the name).
using ParseFn = base::Result<std::unique_ptr<PreparedCommand>> (*)(ArgParser& args);

struct CommandSpec {
  std::string_view name;  // upper case
  StateSet states = kAnyState;
  uint32_t flags = kNoFlags;
  ParseFn parse = nullptr;

  bool allowedIn(State s) const { return (states & stateBit(s)) != 0; }
  bool has(CommandFlag f) const { return (flags & f) != 0; }
};

// For commands without arguments.
struct NoArgs {};
inline base::Result<NoArgs> parseNoArgs(ArgParser&) { return NoArgs{}; }

namespace internal {
template <typename Args, asio::awaitable<Reply> (*Execute)(Session&, Args)>
class BoundCommand final : public PreparedCommand {
 public:
  explicit BoundCommand(Args args) : args_(std::move(args)) {}
  asio::awaitable<Reply> execute(Session& session) override {
    return Execute(session, std::move(args_));
  }

 private:
  Args args_;
};

template <typename Args, base::Result<Args> (*Parse)(ArgParser&),
          asio::awaitable<Reply> (*Execute)(Session&, Args)>
base::Result<std::unique_ptr<PreparedCommand>> parseAndBind(ArgParser& p) {
  base::Result<Args> args = Parse(p);
  if (!args.ok()) return args.status();
  // Every command ends at the end of its arguments; checked here so no parser can forget.
  DARIUS_RETURN_IF_ERROR(p.end());
  return std::unique_ptr<PreparedCommand>(new BoundCommand<Args, Execute>(std::move(args).value()));
}
}  // namespace internal

// The spec of one command: Parse produces Args (or kInvalid with the BAD text), Execute
// runs them and returns the tagged reply.
template <typename Args, base::Result<Args> (*Parse)(ArgParser&),
          asio::awaitable<Reply> (*Execute)(Session&, Args)>
CommandSpec makeCommand(std::string_view name, StateSet states, uint32_t flags = kNoFlags) {
  return CommandSpec{name, states, flags, &internal::parseAndBind<Args, Parse, Execute>};
}

class CommandTable {
 public:
  // Aborts on a duplicate or non-upper-case name: that is a bug in the table, not input.
  explicit CommandTable(std::vector<CommandSpec> specs);

  // Every command this build implements (the files under imapd/commands/).
  static CommandTable standard();

  // Case-insensitive; null if unknown.
  const CommandSpec* find(std::string_view name) const;
  const std::vector<CommandSpec>& all() const { return specs_; }

 private:
  std::vector<CommandSpec> specs_;  // sorted by name
};

}  // namespace darius::imapd
