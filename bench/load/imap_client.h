// bench/load: a minimal IMAP4rev1 client for the load generator — tagged commands, untagged
// responses handed to a callback one at a time (so FETCH 1:* of 10,000 messages is never
// held in memory whole), literals parsed by their {n} octet counts (RFC 3501 §4.3), and a
// small parser of parenthesised values for FETCH items (ENVELOPE, BODYSTRUCTURE).
//
// Literal handling: LiteralMode::Keep stores literal bodies in the response (small ones:
// an ENVELOPE subject); LiteralMode::Skip reads and drops them, keeping only their sizes
// (BODY[] of a 1 MiB message).
//
// Ownership: an ImapClient owns its Conn. Not thread-safe: one thread per client. Server
// failures (NO, BAD, BYE, EOF, timeouts) throw WorkloadError.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bench/load/conn.h"

namespace darius::bench {

enum class LiteralMode { Keep, Skip };

// One response: its text with each literal left as its "{n}" marker, plus the literals.
struct ImapResponse {
  std::string text;
  std::vector<std::string> literals;  // empty strings in Skip mode
  std::vector<size_t> literal_sizes;
  size_t literal_lfs = 0;  // '\n' bytes in skipped literals (CRLF sanity check)
};

// A parsed IMAP value: atom (including NIL and numbers), string (quoted or literal), list.
struct ImapValue {
  enum class Kind { Atom, String, List } kind = Kind::Atom;
  std::string s;
  size_t literal_size = 0;  // for strings that came as literals
  std::vector<ImapValue> list;
  bool isNil() const { return kind == Kind::Atom && (s == "NIL" || s == "nil"); }
};

// Parses the values of `text` from `pos` until the end (or an unmatched ')'), taking
// literal markers from `r.literals` in order. Throws WorkloadError on malformed input.
std::vector<ImapValue> parseImapValues(const ImapResponse& r, size_t pos);

// For "* n FETCH (name value ...)": the sequence number and the name/value pairs, names
// upper-cased. Returns false if the response is not a FETCH.
struct FetchItems {
  uint32_t seq = 0;
  std::vector<std::pair<std::string, ImapValue>> items;
  const ImapValue* find(std::string_view name) const;
};
bool parseFetch(const ImapResponse& r, FetchItems& out);

struct SelectInfo {
  uint32_t exists = 0;
  uint32_t uidvalidity = 0;
  uint32_t uidnext = 0;
};

class ImapClient {
 public:
  // Connects and reads the greeting (throws on BYE or a non-IMAP greeting).
  static ImapClient connect(const std::string& host, int port, double timeout_s);
  explicit ImapClient(Conn c);  // reads the greeting from c

  void login(const std::string& user, const std::string& password);
  void logout();  // best effort: errors ignored

  using Untagged = std::function<void(ImapResponse&)>;
  // Sends "<tag> <cmd>" and reads to the tagged reply; untagged responses go to onUntagged.
  // Returns the tagged line. Throws WorkloadError unless the reply is OK.
  std::string command(std::string_view cmd, const Untagged& onUntagged = {},
                      LiteralMode mode = LiteralMode::Keep);

  SelectInfo select(const std::string& mailbox);
  // APPEND one message (LITERAL+ when the server has it, else a synchronizing literal).
  // Returns the tagged line (it carries APPENDUID with UIDPLUS).
  std::string append(const std::string& mailbox, std::string_view message,
                     std::string_view flags = "");
  // Numbers of a SEARCH (or UID SEARCH) reply; ESEARCH replies are not requested.
  std::vector<uint32_t> search(std::string_view criteria, bool uid = false);

  // Pipelining (RFC 3501 §5.5): sends the commands `window` at a time in one write each and
  // reads every tagged reply before the next batch, so the server never blocks on a reply
  // the client is not reading. A NO or BAD does not stop the rest: each failed command is
  // counted, and the first `keep_errors` of them are kept as "<command>: <reply>". BYE or
  // EOF throws WorkloadError.
  struct PipelineResult {
    size_t failed = 0;
    std::vector<std::string> errors;
  };
  PipelineResult pipeline(const std::vector<std::string>& cmds, size_t window,
                          const Untagged& onUntagged = {}, size_t keep_errors = 5);

  const std::set<std::string>& capabilities();  // CAPABILITY, cached after login
  Conn& conn() { return conn_; }

  // Reads one complete response (line plus literals). Exposed for the self-test.
  ImapResponse readResponse(LiteralMode mode);

 private:
  std::string nextTag();
  void parseCapabilities(std::string_view text);

  Conn conn_;
  uint64_t tag_ = 0;
  std::set<std::string> caps_;
  bool caps_known_ = false;
};

// IMAP quoted string for a LOGIN argument or a search key.
std::string imapQuote(std::string_view s);

}  // namespace darius::bench
