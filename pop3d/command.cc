#include "pop3d/command.h"

#include <array>
#include <charconv>
#include <vector>

#include "lib/base/base64.h"

namespace darius::pop3d {

namespace {

// The argument shape of each keyword: how parseCommand() checks a line before the session
// sees it. Message numbers are the only typed arguments POP3 has (RFC 1939 §5).
enum class Shape : uint8_t {
  kNone,         // no arguments
  kOneWord,      // USER name
  kRestOfLine,   // PASS: the rest of the line, spaces included
  kAuth,         // AUTH [mechanism [initial-response]]
  kOptionalMsg,  // LIST, UIDL [msg]
  kMsg,          // RETR, DELE msg
  kMsgLines,     // TOP msg n
};

struct Syntax {
  Verb verb;
  std::string_view name;
  Shape shape;
};

// Indexed by Verb.
constexpr std::array<Syntax, kVerbCount> kSyntax = {{
    {Verb::kUser, "USER", Shape::kOneWord},      // RFC 1939 §7
    {Verb::kPass, "PASS", Shape::kRestOfLine},   // RFC 1939 §7
    {Verb::kAuth, "AUTH", Shape::kAuth},         // RFC 5034 §4
    {Verb::kStls, "STLS", Shape::kNone},         // RFC 2595 §4
    {Verb::kCapa, "CAPA", Shape::kNone},         // RFC 2449 §5
    {Verb::kNoop, "NOOP", Shape::kNone},         // RFC 1939 §5
    {Verb::kQuit, "QUIT", Shape::kNone},         // RFC 1939 §4, §6
    {Verb::kStat, "STAT", Shape::kNone},         // RFC 1939 §5
    {Verb::kList, "LIST", Shape::kOptionalMsg},  // RFC 1939 §5
    {Verb::kRetr, "RETR", Shape::kMsg},          // RFC 1939 §5
    {Verb::kDele, "DELE", Shape::kMsg},          // RFC 1939 §5
    {Verb::kRset, "RSET", Shape::kNone},         // RFC 1939 §5
    {Verb::kTop, "TOP", Shape::kMsgLines},       // RFC 1939 §7
    {Verb::kUidl, "UIDL", Shape::kOptionalMsg},  // RFC 1939 §7
    {Verb::kUnknown, "UNKNOWN", Shape::kNone},
}};

static_assert([] {
  for (size_t i = 0; i < kSyntax.size(); ++i) {
    if (static_cast<size_t>(kSyntax[i].verb) != i) return false;
  }
  return true;
}());

char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

bool equalsUpper(std::string_view text, std::string_view upper_name) {
  if (text.size() != upper_name.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (upper(text[i]) != upper_name[i]) return false;
  }
  return true;
}

// RFC 1939 §3: keywords and arguments are printable ASCII. We also let 8-bit bytes through
// (UTF-8 user names and passwords exist in the wild); control characters never pass.
bool isArgumentByte(unsigned char c) { return c >= 0x20 && c != 0x7f; }

std::vector<std::string_view> splitWords(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t start = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > start) words.push_back(s.substr(start, i - start));
  }
  return words;
}

// A message number or line count: 1*DIGIT, no sign, fits in 32 bits.
std::optional<uint32_t> parseNumber(std::string_view s) {
  if (s.empty() || s.size() > 10) return std::nullopt;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

Command bad(Command c, std::string text) {
  c.error = SyntaxError::kBadArguments;
  c.error_text = std::move(text);
  return c;
}

}  // namespace

std::string_view verbName(Verb verb) { return kSyntax[static_cast<size_t>(verb)].name; }

Command parseCommand(std::string_view line) {
  Command c;
  size_t space = line.find(' ');
  std::string_view keyword = line.substr(0, space);
  std::string_view rest =
      space == std::string_view::npos ? std::string_view() : line.substr(space + 1);

  for (const Syntax& s : kSyntax) {
    if (s.verb != Verb::kUnknown && equalsUpper(keyword, s.name)) {
      c.verb = s.verb;
      break;
    }
  }
  if (c.verb == Verb::kUnknown) {
    c.error = SyntaxError::kUnknownCommand;
    c.error_text = keyword.empty() ? "Empty command" : "Unknown command";
    return c;
  }
  for (char ch : rest) {
    if (!isArgumentByte(static_cast<unsigned char>(ch))) {
      return bad(std::move(c), "Invalid character in command");
    }
  }

  const Shape shape = kSyntax[static_cast<size_t>(c.verb)].shape;
  if (shape == Shape::kRestOfLine) {
    if (rest.empty()) return bad(std::move(c), "Missing argument");
    c.text = std::string(rest);
    return c;
  }

  std::vector<std::string_view> words = splitWords(rest);
  auto needMsg = [&](std::string_view w) -> bool {
    auto n = parseNumber(w);
    if (!n || *n == 0) return false;
    c.msg = *n;
    return true;
  };
  switch (shape) {
    case Shape::kNone:
      if (!words.empty()) return bad(std::move(c), "No arguments allowed");
      break;
    case Shape::kOneWord:
      if (words.size() != 1) return bad(std::move(c), "Exactly one argument expected");
      c.text = std::string(words[0]);
      break;
    case Shape::kRestOfLine:
      break;  // handled above
    case Shape::kAuth:
      if (words.size() > 2) return bad(std::move(c), "Too many arguments");
      if (!words.empty()) {
        c.text.reserve(words[0].size());
        for (char ch : words[0]) c.text.push_back(upper(ch));
      }
      if (words.size() == 2) c.initial_response = std::string(words[1]);
      break;
    case Shape::kOptionalMsg:
      if (words.size() > 1) return bad(std::move(c), "Too many arguments");
      if (words.size() == 1 && !needMsg(words[0])) {
        return bad(std::move(c), "Invalid message number");
      }
      break;
    case Shape::kMsg:
      if (words.size() != 1) return bad(std::move(c), "Message number expected");
      if (!needMsg(words[0])) return bad(std::move(c), "Invalid message number");
      break;
    case Shape::kMsgLines: {
      if (words.size() != 2) return bad(std::move(c), "Message number and line count expected");
      if (!needMsg(words[0])) return bad(std::move(c), "Invalid message number");
      auto n = parseNumber(words[1]);
      if (!n) return bad(std::move(c), "Invalid line count");
      c.lines = *n;
      break;
    }
  }
  return c;
}

base::Result<std::optional<std::string>> parseSaslResponse(std::string_view line) {
  if (line == "*") return std::optional<std::string>();
  auto decoded = base::base64Decode(line);
  if (!decoded.ok()) return decoded.status();
  return std::optional<std::string>(std::move(*decoded));
}

base::Result<std::string> decodeInitialResponse(std::string_view argument) {
  if (argument == "=") return std::string();
  return base::base64Decode(argument);
}

}  // namespace darius::pop3d
