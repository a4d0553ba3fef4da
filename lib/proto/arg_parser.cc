#include "lib/proto/arg_parser.h"

#include "lib/base/utf8.h"

#include <limits>

namespace darius::proto {

using base::Result;
using base::Status;

namespace {

constexpr uint64_t kMaxNumber64 = std::numeric_limits<int64_t>::max();  // RFC 9051 number64

bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }

// Parses 1*DIGIT as a number64. nullopt for no digits; kTooBig above 2^63-1.
Result<std::optional<uint64_t>> parseNumber64(std::string_view digits) {
  if (digits.empty()) return std::optional<uint64_t>();
  for (char ch : digits) {
    if (!isDigit(static_cast<unsigned char>(ch))) return std::optional<uint64_t>();
  }
  uint64_t n = 0;
  for (char ch : digits) {
    uint64_t d = static_cast<unsigned char>(ch) - '0';
    if (n > (kMaxNumber64 - d) / 10) return Status::tooBig("Literal size out of range");
    n = n * 10 + d;
  }
  return std::optional<uint64_t>(n);
}

// Length of the well-formed UTF-8 sequence (RFC 3629) starting at s[i], or 0.
size_t utf8Length(std::string_view s, size_t i) { return base::decodeUtf8(s, i).length; }

bool isBase64Char(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || isDigit(c) || c == '+' || c == '/' ||
         c == '=';
}

// Why the byte at `pos` cannot start (or continue) the element the caller wanted.
Status unexpected(std::string_view text, size_t pos, std::string_view wanted) {
  if (pos >= text.size()) return Status::invalid("Missing " + std::string(wanted));
  auto c = static_cast<unsigned char>(text[pos]);
  if (c == 0) return Status::invalid("NUL byte in command");
  if (c >= 0x80)
    return Status::invalid("8-bit character where " + std::string(wanted) + " was expected");
  if (c == '\r' || c == '\n') return Status::invalid("Missing " + std::string(wanted));
  if (c < 0x20 || c == 0x7F) return Status::invalid("Control character in command");
  if (c == ' ')
    return Status::invalid("Unexpected SP where " + std::string(wanted) + " was expected");
  return Status::invalid("Unexpected '" + std::string(1, static_cast<char>(c)) + "' where " +
                         std::string(wanted) + " was expected");
}

// A run of characters for which pred holds must be followed by SP, ")", end, or a
// character that is plainly a separate token; a NUL, 8-bit or control byte right after an
// atom-like run is reported as part of it, which gives a clearer message.
Status checkRunEnd(std::string_view text, size_t end, std::string_view what) {
  if (end >= text.size()) return Status::ok();
  auto c = static_cast<unsigned char>(text[end]);
  if (c == 0) return Status::invalid("NUL byte in " + std::string(what));
  if (c >= 0x80) return Status::invalid("8-bit character in " + std::string(what));
  if (c < 0x20 || c == 0x7F) return Status::invalid("Control character in " + std::string(what));
  return Status::ok();
}

}  // namespace

bool isAtomChar(unsigned char c) {
  if (c <= 0x20 || c >= 0x7F) return false;  // SP, CTL, 8-bit
  switch (c) {
    case '(':
    case ')':
    case '{':
    case '%':
    case '*':
    case '"':
    case '\\':
    case ']':
      return false;
    default:
      return true;
  }
}

bool isAstringChar(unsigned char c) { return isAtomChar(c) || c == ']'; }

bool isTagChar(unsigned char c) { return isAstringChar(c) && c != '+'; }

std::string asciiUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'a' && x <= 'z') x = static_cast<char>(x - 'a' + 'A');
    if (y >= 'a' && y <= 'z') y = static_cast<char>(y - 'a' + 'A');
    if (x != y) return false;
  }
  return true;
}

std::string quoteString(std::string_view s) {
  bool quotable = s.size() <= 1024;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == 0 || c == '\r' || c == '\n' || c >= 0x80) quotable = false;
  }
  if (!quotable) return "{" + std::to_string(s.size()) + "}\r\n" + std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

std::optional<LiteralHeader> literalAtEnd(std::string_view line) {
  if (line.empty() || line.back() != '}') return std::nullopt;
  size_t open = line.rfind('{');
  if (open == std::string_view::npos) return std::nullopt;
  std::string_view inner = line.substr(open + 1, line.size() - open - 2);
  LiteralHeader h;
  if (!inner.empty() && inner.back() == '+') {
    h.synchronizing = false;
    inner.remove_suffix(1);
  }
  auto n = parseNumber64(inner);
  if (n.ok() && !*n) return std::nullopt;
  h.size = n.ok() ? **n : kLiteralSizeOverflow;
  return h;
}

std::optional<LiteralHeader> CommandBuffer::addLine(std::string_view line) {
  text_.append(line.data(), line.size());
  auto h = literalAtEnd(line);
  if (h) text_ += "\r\n";
  return h;
}

void CommandBuffer::addLiteral(std::string_view bytes) {
  text_.append(bytes.data(), bytes.size());
  literal_bytes_ += bytes.size();
}

std::string CommandBuffer::replyTag() const {
  ArgParser p(text_);
  auto t = p.tag();
  return t.ok() ? std::string(*t) : std::string("*");
}

void CommandBuffer::clear() {
  text_.clear();
  literal_bytes_ = 0;
}

Result<std::string_view> ArgParser::tag() {
  size_t end = pos_;
  while (end < text_.size() && isTagChar(static_cast<unsigned char>(text_[end]))) ++end;
  if (end == pos_) {
    if (atEnd()) return Status::invalid("Empty command line");
    return Status::invalid("Missing or invalid tag");
  }
  if (end < text_.size() && text_[end] != ' ') return Status::invalid("Invalid character in tag");
  std::string_view t = text_.substr(pos_, end - pos_);
  pos_ = end;
  return t;
}

Result<std::string_view> ArgParser::atom() {
  size_t end = pos_;
  while (end < text_.size() && isAtomChar(static_cast<unsigned char>(text_[end]))) ++end;
  if (end == pos_) return unexpected(text_, pos_, "an atom");
  DARIUS_RETURN_IF_ERROR(checkRunEnd(text_, end, "atom"));
  std::string_view a = text_.substr(pos_, end - pos_);
  pos_ = end;
  return a;
}

Status ArgParser::space() {
  if (peek(' ')) {
    ++pos_;
    return Status::ok();
  }
  if (atEnd()) return Status::invalid("Missing argument");
  return Status::invalid("Expected SP");
}

Result<std::string> ArgParser::quoted() {
  if (!peek('"')) return unexpected(text_, pos_, "a quoted string");
  std::string out;
  size_t i = pos_ + 1;
  while (i < text_.size()) {
    auto c = static_cast<unsigned char>(text_[i]);
    if (c == '"') {
      pos_ = i + 1;
      return out;
    }
    if (c == '\\') {
      if (i + 1 < text_.size() && (text_[i + 1] == '"' || text_[i + 1] == '\\')) {
        out += text_[i + 1];
        i += 2;
        continue;
      }
      return Status::invalid("Invalid escape in quoted string");
    }
    if (c == 0) return Status::invalid("NUL byte in quoted string");
    if (c == '\r' || c == '\n') break;
    if (c >= 0x80) {
      size_t len = utf8Length(text_, i);
      if (len == 0) return Status::invalid("Invalid UTF-8 in quoted string");
      out.append(text_.substr(i, len));
      i += len;
      continue;
    }
    out += static_cast<char>(c);
    ++i;
  }
  return Status::invalid("Unterminated quoted string");
}

Result<std::string> ArgParser::literal() {
  if (!peek('{')) return unexpected(text_, pos_, "a literal");
  size_t close = text_.find('}', pos_);
  if (close == std::string_view::npos) return Status::invalid("Invalid literal header");
  std::string_view inner = text_.substr(pos_ + 1, close - pos_ - 1);
  if (!inner.empty() && inner.back() == '+') inner.remove_suffix(1);
  auto n = parseNumber64(inner);
  if (!n.ok()) return n.status();
  if (!*n) return Status::invalid("Invalid literal header");
  if (text_.substr(close + 1, 2) != "\r\n") {
    return Status::invalid("Literal header must end the line");
  }
  size_t start = close + 3;
  if (text_.size() - start < **n) return Status::invalid("Truncated literal");
  std::string_view bytes = text_.substr(start, static_cast<size_t>(**n));
  if (bytes.find('\0') != std::string_view::npos) return Status::invalid("NUL byte in literal");
  pos_ = start + bytes.size();
  return std::string(bytes);
}

Result<std::string> ArgParser::string() {
  if (peek('"')) return quoted();
  if (peek('{')) return literal();
  return unexpected(text_, pos_, "a quoted string or literal");
}

Result<std::string> ArgParser::astring() {
  if (peek('"') || peek('{')) return string();
  size_t end = pos_;
  while (end < text_.size() && isAstringChar(static_cast<unsigned char>(text_[end]))) ++end;
  if (end == pos_) return unexpected(text_, pos_, "a string");
  DARIUS_RETURN_IF_ERROR(checkRunEnd(text_, end, "atom"));
  std::string a(text_.substr(pos_, end - pos_));
  pos_ = end;
  return a;
}

Result<std::optional<std::string>> ArgParser::nstring() {
  if (skipNil()) return std::optional<std::string>();
  if (peek('"') || peek('{')) {
    auto s = string();
    if (!s.ok()) return s.status();
    return std::optional<std::string>(std::move(*s));
  }
  return unexpected(text_, pos_, "a string or NIL");
}

bool ArgParser::skipNil() {
  if (text_.size() - pos_ < 3 || !equalsIgnoreCase(text_.substr(pos_, 3), "NIL")) return false;
  if (pos_ + 3 < text_.size() && isAtomChar(static_cast<unsigned char>(text_[pos_ + 3]))) {
    return false;  // "NILS" is an atom, not NIL
  }
  pos_ += 3;
  return true;
}

Result<std::string_view> ArgParser::base64Token() {
  size_t end = pos_;
  while (end < text_.size() && isBase64Char(static_cast<unsigned char>(text_[end]))) ++end;
  if (end == pos_) return unexpected(text_, pos_, "base64 data");
  if (end < text_.size() && text_[end] != ' ') {
    return Status::invalid("Invalid character in base64 data");
  }
  std::string_view t = text_.substr(pos_, end - pos_);
  pos_ = end;
  return t;
}

bool ArgParser::skipIf(char c) {
  if (!peek(c)) return false;
  ++pos_;
  return true;
}

Status ArgParser::end() const {
  if (atEnd()) return Status::ok();
  return Status::invalid("Unexpected extra arguments");
}

}  // namespace darius::proto
