// The RFC 5322 §3.2 lexical layer that the structured header parsers (addresses, Content-Type,
// Content-Disposition, Content-Language) share: folding white space, nested comments with
// quoted-pairs, atoms, MIME tokens (RFC 2045 §5.1), quoted strings and domain literals, plus
// the ASCII helpers every file of lib/mime needs.
//
// Real mail is not always well formed, so the lexer never fails: an unterminated quoted
// string or comment runs to the end of the input, and 8-bit bytes count as atom and token
// characters (RFC 6532 allows UTF-8 there; invalid 8-bit is passed through untouched).
//
// Ownership: a Lexer views caller-owned text, which must outlive it. Thread-safety: a Lexer
// is a cursor, one per parse; the free functions are pure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace darius::mime {

inline bool isWsp(char c) { return c == ' ' || c == '\t'; }
inline bool isFws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
inline char lowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }
inline char upperAscii(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; }

bool equalsNoCase(std::string_view a, std::string_view b);
bool startsWithNoCase(std::string_view s, std::string_view prefix);
std::string toUpperAscii(std::string_view s);
std::string toLowerAscii(std::string_view s);
// `s` without leading and trailing space, tab, CR and LF.
std::string_view trimFws(std::string_view s);

// atext of RFC 5322 §3.2.3, plus every 8-bit byte.
bool isAtext(char c);
// token characters of RFC 2045 §5.1 (no SPACE, CTLs or tspecials), plus every 8-bit byte.
bool isTokenChar(char c);

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  bool atEnd() const { return pos_ >= s_.size(); }
  // The current byte, or '\0' at the end (callers test atEnd() where NUL input matters).
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  size_t pos() const { return pos_; }
  void setPos(size_t pos) { pos_ = pos < s_.size() ? pos : s_.size(); }
  void advance() { if (pos_ < s_.size()) ++pos_; }
  std::string_view text() const { return s_; }
  std::string_view rest() const { return s_.substr(pos_); }

  // Consumes `c` if it is next; no white space is skipped.
  bool consume(char c);

  // Skips white space, line ends and comments. When `comment` is given, it receives the text
  // of the last comment skipped (without its parentheses, quoted-pairs resolved), if any.
  // Returns whether anything was skipped.
  bool skipCfws(std::string* comment = nullptr);

  // A run of atext (may be empty).
  std::string_view atom();
  // A run of MIME token characters (may be empty).
  std::string_view token();
  // At '"': the content of the quoted string, quoted-pairs resolved and folding line ends
  // removed. Lenient: runs to the end of input if unterminated.
  std::string quotedString();
  // At '[': the whole domain literal, brackets included, folding removed.
  std::string domainLiteral();
  // At '(': a comment (nested), returned without the outer parentheses.
  std::string comment();

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace darius::mime
