#include "lib/proto/chars.h"

namespace darius::proto {

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

bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }

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

}  // namespace darius::proto
