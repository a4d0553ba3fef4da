// Framing of one IMAP command out of its lines and literals (RFC 9051 §4.3, RFC 7888): the
// session reads a line, asks whether it ends in a literal header, reads that many bytes, then
// the next line, and so on. What comes out is the command in wire form without its final
// CRLF: the lines joined by "\r\n", each literal's bytes right after the CRLF of the line
// announcing it, which is what ArgParser (lib/proto/arg_parser.h) reads.
//
// Limits are the caller's: CommandBuffer counts the literal bytes it was given so the session
// can refuse a command whose literals together exceed its configured limit, and reports a
// literal size over number64 as kLiteralSizeOverflow so that it is over every limit.
//
// Ownership: a CommandBuffer owns its text. Thread-safety: none; one per session.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace darius::proto {

// "{n}" (synchronising: the server sends a continuation first) or "{n+}" (RFC 7888 LITERAL+
// and LITERAL-; which of them may be used, and up to what size, is the session's decision).
struct LiteralHeader {
  uint64_t size = 0;
  bool synchronizing = true;
};

// A literal size above number64 (2^63-1): over any limit, so the command is refused.
inline constexpr uint64_t kLiteralSizeOverflow = UINT64_MAX;

// The inside of a literal header's braces ("5", "5+"); nullopt when it is not one ("", "+",
// "5-", " 5", "x"). A count over number64 gives the size kLiteralSizeOverflow.
std::optional<LiteralHeader> parseLiteralHeader(std::string_view inside_braces);

// The literal header at the very end of `line`, if there is one (RFC 7888 §3: the receiver
// checks the end of every line). Anything else (such as "{5-}", "{}" or "{x}") is not a
// header; the lexer rejects it later as bad syntax.
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

}  // namespace darius::proto
