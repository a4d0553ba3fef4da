// The IMAP command grammar: framing a command out of its lines and literals (CommandBuffer),
// and a lexer over the framed command (ArgParser) for tags, atoms, quoted strings, literals,
// astring, nstring and base64 tokens, following RFC 9051 §9 (formal syntax) and RFC 7888
// (non-synchronising literals). It lives in lib/proto (DESIGN.md §2), below the daemons, so
// the IMAP commands and any other service that speaks an IMAP-style grammar share it.
//
// Both are pure (no I/O), so they run the same under the session, in tests and under
// libFuzzer. A command is held in wire form without its final CRLF: the lines joined by
// "\r\n", each literal's bytes right after the CRLF of the line announcing it. Every error is
// kInvalid (kTooBig for literal sizes) with a short message meant for the client's BAD reply.
//
// Ownership: CommandBuffer owns its text; an ArgParser borrows the text it reads, which must
// outlive it. Thread-safety: none; each object belongs to one session.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::proto {

// "{n}" (synchronising: the server sends a continuation first) or "{n+}" (RFC 7888).
struct LiteralHeader {
  uint64_t size = 0;
  bool synchronizing = true;
};

// A literal size above number64 (2^63-1): over any limit, so the command is refused.
inline constexpr uint64_t kLiteralSizeOverflow = UINT64_MAX;

// The literal header at the very end of `line`, if there is one (RFC 7888 §3: the receiver
// checks the end of every line). A count that does not fit a number64 gives the size
// kLiteralSizeOverflow. Anything else (such as "{5-}", "{}" or "{x}") is not a header; the
// lexer rejects it later as bad syntax.
std::optional<LiteralHeader> literalAtEnd(std::string_view line);

// Collects one command: its first line, then for each literal announced at a line's end the
// literal's bytes and the line that follows them.
class CommandBuffer {
 public:
  // Appends a line (without its line end) and returns the literal it announces, if any.
  std::optional<LiteralHeader> addLine(std::string_view line);
  // Appends the bytes of the literal the last line announced.
  void addLiteral(std::string_view bytes);

  const std::string& text() const { return text_; }
  uint64_t literalBytes() const { return literal_bytes_; }
  // The tag if the first line starts with a valid one, else "*": whom an early error goes to.
  std::string replyTag() const;
  void clear();

 private:
  std::string text_;
  uint64_t literal_bytes_ = 0;
};

// Reads the grammar elements of one framed command left to right. Each method consumes its
// element on success and leaves the position unchanged on failure.
class ArgParser {
 public:
  explicit ArgParser(std::string_view text) : text_(text) {}

  // tag = 1*<any ASTRING-CHAR except "+">
  base::Result<std::string_view> tag();
  // atom = 1*ATOM-CHAR (7-bit, no atom-specials). Command names and capability names.
  base::Result<std::string_view> atom();
  // Exactly one SP.
  base::Status space();
  // quoted = DQUOTE *QUOTED-CHAR DQUOTE, unescaped; UTF-8 is accepted (RFC 9051).
  base::Result<std::string> quoted();
  // literal = "{" number64 ["+"] "}" CRLF *CHAR8 (the framing put the bytes after the CRLF).
  base::Result<std::string> literal();
  // string = quoted / literal
  base::Result<std::string> string();
  // astring = 1*ASTRING-CHAR / string
  base::Result<std::string> astring();
  // nstring = string / NIL; nullopt for NIL.
  base::Result<std::optional<std::string>> nstring();
  // A base64 token up to the next SP or the end (RFC 4648 alphabet and "="); the caller
  // decodes it. AUTHENTICATE's initial response (RFC 4959) is one.
  base::Result<std::string_view> base64Token();
  // The atom NIL (any case).
  bool skipNil();

  // Consumes `c` if it is next.
  bool skipIf(char c);
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool atEnd() const { return pos_ >= text_.size(); }
  // OK at the end of the command, else kInvalid "Unexpected extra arguments".
  base::Status end() const;
  size_t position() const { return pos_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// Character classes of RFC 9051 §9, exposed for the commands and the tests.
bool isAtomChar(unsigned char c);
bool isAstringChar(unsigned char c);  // ATOM-CHAR / resp-specials ("]")
bool isTagChar(unsigned char c);      // ASTRING-CHAR except "+"

// Upper-cases ASCII letters (command and capability names are case-insensitive).
std::string asciiUpper(std::string_view s);
bool equalsIgnoreCase(std::string_view a, std::string_view b);

// Quotes `s` as an IMAP quoted string if it can be one, else as a literal (server output).
std::string quoteString(std::string_view s);

}  // namespace darius::proto
