#include "lib/proto/arg_parser.h"

#include "lib/base/utf8.h"
#include "lib/proto/number.h"

namespace darius::proto {

using base::Result;
using base::Status;

namespace {

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
  const size_t start = pos_;
  DARIUS_ASSIGN_OR_RETURN(std::string bytes, literalBytes());
  // CHAR8 is %x01-ff: NUL may only come in a literal8.
  if (bytes.find('\0') != std::string::npos) {
    pos_ = start;
    return Status::invalid("NUL byte in literal");
  }
  return bytes;
}

Result<std::string> ArgParser::literal8() {
  if (text_.substr(pos_, 2) != "~{") return unexpected(text_, pos_, "a literal8");
  const size_t start = pos_;
  ++pos_;
  Result<std::string> bytes = literalBytes();
  if (!bytes.ok()) pos_ = start;
  return bytes;
}

Result<std::string> ArgParser::literalBytes() {
  size_t close = text_.find('}', pos_);
  if (close == std::string_view::npos) return Status::invalid("Invalid literal header");
  std::optional<LiteralHeader> h = parseLiteralHeader(text_.substr(pos_ + 1, close - pos_ - 1));
  if (!h) return Status::invalid("Invalid literal header");
  if (h->size == kLiteralSizeOverflow) return Status::tooBig("Literal size out of range");
  if (text_.substr(close + 1, 2) != "\r\n") {
    return Status::invalid("Literal header must end the line");
  }
  size_t start = close + 3;
  if (text_.size() - start < h->size) return Status::invalid("Truncated literal");
  std::string_view bytes = text_.substr(start, static_cast<size_t>(h->size));
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

Result<std::string> ArgParser::mailbox() {
  auto name = astring();
  if (!name.ok()) return name.status();
  // RFC 9051 §9 mailbox: every case variant of INBOX is INBOX. Only the whole name: whether
  // "inbox/sub" is under INBOX is the namespace's business (RFC 9051 §5.1).
  if (equalsIgnoreCase(*name, "INBOX")) return std::string("INBOX");
  return name;
}

template <typename T>
Result<T> ArgParser::numberOf(Result<T> (*parse)(std::string_view)) {
  std::string_view digits = run([](unsigned char c) { return isDigit(c); });
  if (digits.empty()) return unexpected(text_, pos_, "a number");
  Result<T> n = parse(digits);
  if (n.ok()) pos_ += digits.size();
  return n;
}

Result<uint32_t> ArgParser::number() { return numberOf<uint32_t>(&parseNumber); }
Result<uint32_t> ArgParser::nzNumber() { return numberOf<uint32_t>(&parseNzNumber); }
Result<uint64_t> ArgParser::number64() { return numberOf<uint64_t>(&parseNumber64); }
Result<uint64_t> ArgParser::nzNumber64() { return numberOf<uint64_t>(&parseNzNumber64); }

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
