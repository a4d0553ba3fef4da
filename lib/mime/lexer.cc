#include "lib/mime/lexer.h"

namespace darius::mime {

bool equalsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lowerAscii(a[i]) != lowerAscii(b[i])) return false;
  }
  return true;
}

bool startsWithNoCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && equalsNoCase(s.substr(0, prefix.size()), prefix);
}

std::string toUpperAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = upperAscii(c);
  return out;
}

std::string toLowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lowerAscii(c);
  return out;
}

std::string_view trimFws(std::string_view s) {
  size_t b = 0;
  while (b < s.size() && isFws(s[b])) ++b;
  size_t e = s.size();
  while (e > b && isFws(s[e - 1])) --e;
  return s.substr(b, e - b);
}

bool isAtext(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x80) return true;
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+': case '-':
    case '/': case '=': case '?': case '^': case '_': case '`': case '{': case '|': case '}':
    case '~':
      return true;
    default:
      return false;
  }
}

bool isTokenChar(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x80) return true;
  if (u <= 0x20 || u == 0x7f) return false;
  switch (c) {
    case '(': case ')': case '<': case '>': case '@': case ',': case ';': case ':': case '\\':
    case '"': case '/': case '[': case ']': case '?': case '=':
      return false;
    default:
      return true;
  }
}

bool Lexer::consume(char c) {
  if (pos_ < s_.size() && s_[pos_] == c) {
    ++pos_;
    return true;
  }
  return false;
}

bool Lexer::skipCfws(std::string* last_comment) {
  size_t start = pos_;
  while (pos_ < s_.size()) {
    char c = s_[pos_];
    if (isFws(c)) {
      ++pos_;
    } else if (c == '(') {
      std::string text = comment();
      if (last_comment != nullptr) *last_comment = std::move(text);
    } else {
      break;
    }
  }
  return pos_ != start;
}

std::string_view Lexer::atom() {
  size_t start = pos_;
  while (pos_ < s_.size() && isAtext(s_[pos_])) ++pos_;
  return s_.substr(start, pos_ - start);
}

std::string_view Lexer::token() {
  size_t start = pos_;
  while (pos_ < s_.size() && isTokenChar(s_[pos_])) ++pos_;
  return s_.substr(start, pos_ - start);
}

std::string Lexer::quotedString() {
  std::string out;
  if (!consume('"')) return out;
  while (pos_ < s_.size()) {
    char c = s_[pos_++];
    if (c == '"') return out;
    if (c == '\\' && pos_ < s_.size()) {
      out.push_back(s_[pos_++]);
    } else if (c == '\r' || c == '\n') {
      // Folding inside the quoted string: the line end goes, the white space stays.
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string Lexer::domainLiteral() {
  std::string out;
  if (!consume('[')) return out;
  out.push_back('[');
  while (pos_ < s_.size()) {
    char c = s_[pos_++];
    if (c == '\\' && pos_ < s_.size()) {
      out.push_back(s_[pos_++]);
    } else if (c == '\r' || c == '\n') {
      continue;
    } else {
      out.push_back(c);
      if (c == ']') break;
    }
  }
  return out;
}

std::string Lexer::comment() {
  std::string out;
  if (!consume('(')) return out;
  int depth = 1;
  while (pos_ < s_.size()) {
    char c = s_[pos_++];
    if (c == '\\' && pos_ < s_.size()) {
      out.push_back(s_[pos_++]);
      continue;
    }
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (--depth == 0) break;
    }
    if (c == '\r' || c == '\n') continue;
    out.push_back(c);
  }
  return out;
}

}  // namespace darius::mime
