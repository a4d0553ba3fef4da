#include "mailbox/html_text.h"

#include <array>
#include <cstdint>
#include <utility>

namespace darius::mailbox {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Whether `s` at `pos` starts with `word` (ASCII, case-insensitively).
bool startsWithNoCase(std::string_view s, size_t pos, std::string_view word) {
  if (s.size() - pos < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (lower(s[pos + i]) != word[i]) return false;
  }
  return true;
}

void appendUtf8(uint32_t cp, std::string& out) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The named references that mail writers use; anything else stays as written.
constexpr std::array<std::pair<std::string_view, uint32_t>, 24> kEntities = {{
    {"amp", '&'},     {"lt", '<'},       {"gt", '>'},       {"quot", '"'},
    {"apos", '\''},   {"nbsp", 0xA0},    {"copy", 0xA9},    {"reg", 0xAE},
    {"trade", 0x2122}, {"hellip", 0x2026}, {"mdash", 0x2014}, {"ndash", 0x2013},
    {"lsquo", 0x2018}, {"rsquo", 0x2019}, {"ldquo", 0x201C}, {"rdquo", 0x201D},
    {"bull", 0x2022}, {"euro", 0x20AC},  {"pound", 0xA3},   {"laquo", 0xAB},
    {"raquo", 0xBB},  {"middot", 0xB7},  {"shy", 0xAD},     {"zwnj", 0x200C},
}};

// Decodes the character reference at `pos` (on '&') into `out`; returns the bytes consumed,
// 0 if there is none (the '&' is then text).
size_t decodeReference(std::string_view s, size_t pos, std::string& out) {
  size_t i = pos + 1;
  if (i < s.size() && s[i] == '#') {
    ++i;
    bool hex = i < s.size() && (s[i] == 'x' || s[i] == 'X');
    if (hex) ++i;
    uint32_t cp = 0;
    size_t digits = 0;
    for (; i < s.size() && digits < 8; ++i, ++digits) {
      char c = s[i];
      uint32_t d;
      if (c >= '0' && c <= '9') d = static_cast<uint32_t>(c - '0');
      else if (hex && lower(c) >= 'a' && lower(c) <= 'f') d = static_cast<uint32_t>(lower(c) - 'a' + 10);
      else break;
      cp = cp * (hex ? 16 : 10) + d;
    }
    if (digits == 0) return 0;
    if (i < s.size() && s[i] == ';') ++i;
    appendUtf8(cp, out);
    return i - pos;
  }
  size_t start = i;
  while (i < s.size() && i - start < 8 && isNameChar(s[i])) ++i;
  if (i == start || i >= s.size() || s[i] != ';') return 0;
  std::string_view name = s.substr(start, i - start);
  for (const auto& [n, cp] : kEntities) {
    if (n == name) {
      appendUtf8(cp, out);
      return i + 1 - pos;
    }
  }
  return 0;
}

// Elements whose content a reader does not see.
constexpr std::array<std::string_view, 4> kHidden = {"script", "style", "head", "title"};
// Elements that start a new line (so that "<p>a</p><p>b</p>" is "a" and "b", not "ab").
constexpr std::array<std::string_view, 18> kBlocks = {
    "br", "p", "div", "tr", "td", "th", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4",
    "h5", "h6", "blockquote", "hr"};

// The element name of the tag whose '<' is at `pos`, lower-cased, and whether it closes.
std::pair<std::string, bool> tagName(std::string_view s, size_t pos) {
  size_t i = pos + 1;
  bool closing = i < s.size() && s[i] == '/';
  if (closing) ++i;
  std::string name;
  while (i < s.size() && isNameChar(s[i]) && name.size() < 16) name.push_back(lower(s[i++]));
  return {name, closing};
}

}  // namespace

std::string htmlToText(std::string_view s) {
  std::string out;
  out.reserve(s.size() / 2);
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '&') {
      size_t used = decodeReference(s, i, out);
      if (used == 0) {
        out.push_back('&');
        ++i;
      } else {
        i += used;
      }
      continue;
    }
    if (c != '<') {
      out.push_back(c);
      ++i;
      continue;
    }
    if (startsWithNoCase(s, i, "<!--")) {
      size_t end = s.find("-->", i + 4);
      i = end == std::string_view::npos ? s.size() : end + 3;
      continue;
    }
    auto [name, closing] = tagName(s, i);
    size_t end = s.find('>', i + 1);
    if (end == std::string_view::npos) break;  // an unterminated tag: nothing more is shown
    i = end + 1;
    if (!closing) {
      bool hidden = false;
      for (std::string_view h : kHidden) hidden = hidden || name == h;
      if (hidden) {
        // Skip to the matching close tag (not nested: these elements hold no elements).
        std::string close = "</" + name;
        size_t at = i;
        while (at < s.size() && !startsWithNoCase(s, at, close)) {
          size_t next = s.find('<', at + 1);
          at = next == std::string_view::npos ? s.size() : next;
        }
        size_t gt = at < s.size() ? s.find('>', at) : std::string_view::npos;
        i = gt == std::string_view::npos ? s.size() : gt + 1;
        out.push_back('\n');
        continue;
      }
    }
    bool block = false;
    for (std::string_view b : kBlocks) block = block || name == b;
    // Any other tag still separates what is on either side of it by a space only when the
    // source had one: "<b>bo</b>ld" reads "bold".
    if (block) out.push_back('\n');
  }
  return out;
}

}  // namespace darius::mailbox
