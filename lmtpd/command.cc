#include "lmtpd/command.h"

#include <array>
#include <limits>

#include "lib/base/utf8.h"

namespace darius::lmtpd {

namespace {

constexpr size_t kMaxLocalPart = 64;  // RFC 5321 §4.5.3.1.1
constexpr size_t kMaxDomain = 255;    // RFC 5321 §4.5.3.1.2
constexpr size_t kMaxPath = 256;      // RFC 5321 §4.5.3.1.3, brackets included

// The argument shape of each keyword.
enum class Shape : uint8_t {
  kNone,      // DATA, RSET, QUIT, STARTTLS
  kDomain,    // LHLO
  kOptional,  // NOOP [SP String]; HELO and EHLO
  kString,    // VRFY SP String
  kMail,
  kRcpt,
  kBdat,      // BDAT SP chunk-size [SP "LAST"]
};

struct Syntax {
  Verb verb;
  std::string_view name;
  Shape shape;
};

// Indexed by Verb.
constexpr std::array<Syntax, kVerbCount> kSyntax = {{
    {Verb::kLhlo, "LHLO", Shape::kDomain},        // RFC 2033 §4.1
    {Verb::kMail, "MAIL", Shape::kMail},          // RFC 5321 §4.1.1.2
    {Verb::kRcpt, "RCPT", Shape::kRcpt},          // RFC 5321 §4.1.1.3
    {Verb::kData, "DATA", Shape::kNone},          // RFC 5321 §4.1.1.4, RFC 2033 §4.2
    {Verb::kRset, "RSET", Shape::kNone},          // RFC 5321 §4.1.1.5
    {Verb::kNoop, "NOOP", Shape::kOptional},      // RFC 5321 §4.1.1.9
    {Verb::kQuit, "QUIT", Shape::kNone},          // RFC 5321 §4.1.1.10
    {Verb::kVrfy, "VRFY", Shape::kString},        // RFC 5321 §4.1.1.6
    {Verb::kStartTls, "STARTTLS", Shape::kNone},  // RFC 3207 §4
    {Verb::kBdat, "BDAT", Shape::kBdat},          // RFC 3030 §2
    {Verb::kHelo, "HELO", Shape::kOptional},      // refused whatever follows
    {Verb::kEhlo, "EHLO", Shape::kOptional},
    {Verb::kUnknown, "UNKNOWN", Shape::kNone},
}};

static_assert([] {
  for (size_t i = 0; i < kSyntax.size(); ++i) {
    if (static_cast<size_t>(kSyntax[i].verb) != i) return false;
  }
  return true;
}());

char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }
bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isPrintable(char c) { return c >= 0x21 && c <= 0x7e; }  // VCHAR
// A byte of a UTF-8 sequence beyond ASCII; parseCommand() has checked the sequences are
// well-formed before any grammar rule sees them (RFC 6531 §3.3 UTF8-non-ascii).
bool isNonAscii(char c) { return static_cast<unsigned char>(c) >= 0x80; }

bool startsWithUpper(std::string_view text, std::string_view upper_prefix) {
  if (text.size() < upper_prefix.size()) return false;
  for (size_t i = 0; i < upper_prefix.size(); ++i) {
    if (upper(text[i]) != upper_prefix[i]) return false;
  }
  return true;
}

bool equalsUpper(std::string_view text, std::string_view upper_name) {
  return text.size() == upper_name.size() && startsWithUpper(text, upper_name);
}

// RFC 5322 §3.2.3 atext, extended by RFC 6531 §3.3 with UTF8-non-ascii.
bool isAtext(char c) {
  if (isAlpha(c) || isDigit(c) || isNonAscii(c)) return true;
  return std::string_view("!#$%&'*+-/=?^_`{|}~").find(c) != std::string_view::npos;
}

// Dot-string = Atom *("." Atom)
bool isDotString(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  char prev = 0;
  for (char c : s) {
    if (c == '.' ? prev == '.' : !isAtext(c)) return false;
    prev = c;
  }
  return true;
}

// Domain = sub-domain *("." sub-domain); sub-domain = Let-dig [Ldh-str] / U-label (RFC 6531
// §3.3; a U-label is taken as any run of UTF-8 here: IDNA validity is the resolver's concern).
bool isDomain(std::string_view s) {
  if (s.empty() || s.size() > kMaxDomain) return false;
  size_t start = 0;
  for (;;) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (label.empty() || label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      if (!isAlpha(c) && !isDigit(c) && c != '-' && !isNonAscii(c)) return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// address-literal = "[" (IPv4 / IPv6 / General) "]": checked as dcontent (RFC 5321 §4.1.3),
// which all three forms are made of; the host part is never used for routing here.
bool isAddressLiteral(std::string_view s) {
  if (s.size() < 3 || s.size() > kMaxDomain || s.front() != '[' || s.back() != ']') return false;
  for (char c : s.substr(1, s.size() - 2)) {
    if (!isPrintable(c) || c == '[' || c == ']' || c == '\\') return false;
  }
  return true;
}

// Quoted-string = DQUOTE *QcontentSMTP DQUOTE; returns the decoded content.
std::optional<std::string> decodeQuoted(std::string_view s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return std::nullopt;
  std::string out;
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    char c = s[i];
    if (c == '\\') {
      if (i + 2 >= s.size()) return std::nullopt;  // the pair would swallow the DQUOTE
      c = s[++i];
      if (c < 0x20 || c > 0x7e) return std::nullopt;  // quoted-pairSMTP: %d92 %d32-126
    } else if ((c < 0x20 && !isNonAscii(c)) || c == 0x7f || c == '"') {
      return std::nullopt;  // qtextSMTP (+ UTF8-non-ascii) excludes DQUOTE and backslash
    }
    out.push_back(c);
  }
  return out;
}

// Local-part = Dot-string / Quoted-string (RFC 5321 §4.1.2), at most 64 octets (§4.5.3.1.1);
// returns it decoded.
std::optional<std::string> parseLocalPart(std::string_view local) {
  if (local.empty() || local.size() > kMaxLocalPart) return std::nullopt;
  if (local.front() == '"') return decodeQuoted(local);
  if (isDotString(local)) return std::string(local);
  return std::nullopt;
}

Command fail(Command c, SyntaxError e, std::string text) {
  c.error = e;
  c.error_text = std::move(text);
  return c;
}

// Reads "<...>" at the start of `s`, honouring quoted strings inside; returns the length of
// the bracketed part or 0.
size_t bracketedLength(std::string_view s) {
  if (s.empty() || s.front() != '<') return 0;
  bool quoted = false;
  for (size_t i = 1; i < s.size(); ++i) {
    char c = s[i];
    if (quoted && c == '\\') {
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == '>' && !quoted) {
      return i + 1;
    }
  }
  return 0;
}

// Drops an RFC 5321 §4.1.2 source route "@a,@b:" from the path; false if it is malformed.
bool dropSourceRoute(std::string_view* path) {
  if (path->empty() || path->front() != '@') return true;
  size_t colon = path->find(':');
  if (colon == std::string_view::npos) return false;
  std::string_view route = path->substr(0, colon);
  size_t start = 0;
  for (;;) {
    size_t comma = route.find(',', start);
    std::string_view hop =
        route.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (hop.size() < 2 || hop.front() != '@' || !isDomain(hop.substr(1))) return false;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  path->remove_prefix(colon + 1);
  return true;
}

// 1*20DIGIT, saturated at UINT64_MAX (any such size is over every limit anyway).
std::optional<uint64_t> parseSize(std::string_view value) {
  if (value.empty() || value.size() > 20) return std::nullopt;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t v = 0;
  for (char ch : value) {
    if (!isDigit(ch)) return std::nullopt;
    unsigned d = static_cast<unsigned>(ch - '0');
    v = v > (kMax - d) / 10 ? kMax : v * 10 + d;
  }
  return v;
}

// Mail-parameters = esmtp-param *(SP esmtp-param); esmtp-param = keyword ["=" value]
// (RFC 5321 §4.1.2). MAIL knows SIZE (RFC 1870 §6), BODY (RFC 6152 §3, RFC 3030 §3) and
// SMTPUTF8 (RFC 6531 §3.4); RCPT knows none.
Command parseParameters(Command c, std::string_view params) {
  const bool is_mail = c.verb == Verb::kMail;
  bool seen_size = false, seen_body = false, seen_utf8 = false;
  while (!params.empty()) {
    if (params.front() != ' ') {
      return fail(std::move(c), SyntaxError::kBadArguments, "Garbage after the path");
    }
    while (!params.empty() && params.front() == ' ') params.remove_prefix(1);
    if (params.empty()) break;
    size_t end = params.find(' ');
    std::string_view param = params.substr(0, end);
    params = end == std::string_view::npos ? std::string_view() : params.substr(end);
    size_t eq = param.find('=');
    std::string_view key = param.substr(0, eq);
    std::string_view value =
        eq == std::string_view::npos ? std::string_view() : param.substr(eq + 1);
    if (key.empty() || (eq != std::string_view::npos && value.empty())) {
      return fail(std::move(c), SyntaxError::kBadArguments, "Malformed parameter");
    }
    for (char ch : key) {
      if (!isAlpha(ch) && !isDigit(ch) && ch != '-') {
        return fail(std::move(c), SyntaxError::kBadArguments, "Malformed parameter");
      }
    }
    if (is_mail && equalsUpper(key, "SIZE")) {  // SIZE=1*20DIGIT
      auto size = parseSize(value);
      if (seen_size || !size) {
        return fail(std::move(c), SyntaxError::kBadArguments, "Bad SIZE parameter");
      }
      seen_size = true;
      c.size = size;
    } else if (is_mail && equalsUpper(key, "BODY")) {
      if (seen_body) {
        return fail(std::move(c), SyntaxError::kBadArguments, "Duplicate BODY parameter");
      }
      seen_body = true;
      if (equalsUpper(value, "7BIT")) {
        c.body = BodyType::k7Bit;
      } else if (equalsUpper(value, "8BITMIME")) {
        c.body = BodyType::k8BitMime;
      } else if (equalsUpper(value, "BINARYMIME")) {
        c.body = BodyType::kBinaryMime;
      } else {
        return fail(std::move(c), SyntaxError::kBadArguments,
                    "BODY must be 7BIT, 8BITMIME or BINARYMIME");
      }
    } else if (is_mail && equalsUpper(key, "SMTPUTF8")) {  // RFC 6531 §3.4: no value
      if (seen_utf8 || eq != std::string_view::npos) {
        return fail(std::move(c), SyntaxError::kBadArguments, "Bad SMTPUTF8 parameter");
      }
      seen_utf8 = true;
      c.smtputf8 = true;
    } else {
      return fail(std::move(c), SyntaxError::kUnknownParameter, "Parameter not supported");
    }
  }
  return c;
}

// Parses " <path> [SP params]" after "FROM:" / "TO:" into the command.
Command parsePathAndParameters(Command c, std::string_view rest) {
  const bool is_mail = c.verb == Verb::kMail;
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);  // leniency, see header
  size_t n = bracketedLength(rest);
  if (n == 0) {
    return fail(std::move(c), SyntaxError::kBadArguments, "Path must be in angle brackets");
  }
  if (n > kMaxPath) return fail(std::move(c), SyntaxError::kBadAddress, "Path too long");
  std::string_view path = rest.substr(1, n - 2);
  std::string_view params = rest.substr(n);
  const bool routed = !path.empty() && path.front() == '@';
  if (!dropSourceRoute(&path) || (routed && path.empty())) {
    return fail(std::move(c), SyntaxError::kBadAddress, "Bad source route");
  }
  c.path = std::string(path);
  for (char ch : path) c.utf8 = c.utf8 || isNonAscii(ch);
  if (path.empty()) {
    if (!is_mail) return fail(std::move(c), SyntaxError::kBadAddress, "Empty recipient address");
  } else if (!is_mail && equalsUpper(path, "POSTMASTER")) {
    c.mailbox = Mailbox{"postmaster", ""};
  } else {
    c.mailbox = parseMailbox(path);
    if (!c.mailbox && !is_mail && !routed) {
      // A Local-part alone (see the header); not after a source route, which names hosts on
      // the way to a domain. An empty one (<"">) names nobody, and one holding "@" (quoted)
      // would read as user@domain further on: both are refused.
      auto local = parseLocalPart(path);
      if (local && !local->empty() && local->find('@') == std::string::npos) {
        c.mailbox = Mailbox{std::move(*local), ""};
        c.bare_local = true;
      }
    }
    if (!c.mailbox) return fail(std::move(c), SyntaxError::kBadAddress, "Bad address syntax");
  }

  return parseParameters(std::move(c), params);
}

}  // namespace

std::string_view verbName(Verb verb) { return kSyntax[static_cast<size_t>(verb)].name; }

std::optional<Mailbox> parseMailbox(std::string_view text) {
  // The local part ends at the last "@" outside a quoted string; a quoted local part may
  // itself contain "@".
  size_t at = text.rfind('@');
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  std::string_view domain = text.substr(at + 1);
  if (!isDomain(domain) && !isAddressLiteral(domain)) return std::nullopt;
  auto local = parseLocalPart(text.substr(0, at));
  if (!local) return std::nullopt;
  return Mailbox{std::move(*local), std::string(domain)};
}

Command parseCommand(std::string_view line) {
  Command c;
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
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
    return fail(std::move(c), SyntaxError::kUnknownCommand, "Command unrecognized");
  }
  // UTF-8 only where RFC 6531 puts it: in the paths (and parameters) of MAIL and RCPT.
  const bool utf8_allowed =
      (c.verb == Verb::kMail || c.verb == Verb::kRcpt) && base::isValidUtf8(rest);
  for (char ch : rest) {
    if (ch != ' ' && !isPrintable(ch) && !(utf8_allowed && isNonAscii(ch))) {
      return fail(std::move(c), SyntaxError::kBadArguments, "Invalid character in command");
    }
  }
  switch (kSyntax[static_cast<size_t>(c.verb)].shape) {
    case Shape::kNone:
      if (!rest.empty()) {
        return fail(std::move(c), SyntaxError::kBadArguments, "No parameters allowed");
      }
      return c;
    case Shape::kDomain:
      // RFC 5321 §4.1.1.1: one Domain or address literal. Any single word is taken: the name
      // is only logged, and MTAs send host names that are not always valid domains.
      if (rest.empty() || rest.find(' ') != std::string_view::npos) {
        return fail(std::move(c), SyntaxError::kBadArguments, "Exactly one host name expected");
      }
      c.text = std::string(rest);
      return c;
    case Shape::kOptional:
      c.text = std::string(rest);
      return c;
    case Shape::kString:
      if (rest.empty()) return fail(std::move(c), SyntaxError::kBadArguments, "Argument required");
      c.text = std::string(rest);
      return c;
    case Shape::kMail:
      if (!startsWithUpper(rest, "FROM:")) {
        return fail(std::move(c), SyntaxError::kBadArguments, "Syntax: MAIL FROM:<address>");
      }
      return parsePathAndParameters(std::move(c), rest.substr(5));
    case Shape::kRcpt:
      if (!startsWithUpper(rest, "TO:")) {
        return fail(std::move(c), SyntaxError::kBadArguments, "Syntax: RCPT TO:<address>");
      }
      return parsePathAndParameters(std::move(c), rest.substr(3));
    case Shape::kBdat: {
      size_t sp = rest.find(' ');
      auto size = parseSize(rest.substr(0, sp));
      if (!size) return fail(std::move(c), SyntaxError::kBadArguments, "Syntax: BDAT size [LAST]");
      c.chunk_size = *size;
      if (sp != std::string_view::npos) {
        if (!equalsUpper(rest.substr(sp + 1), "LAST")) {
          return fail(std::move(c), SyntaxError::kBadArguments, "Syntax: BDAT size [LAST]");
        }
        c.last = true;
      }
      return c;
    }
  }
  return c;
}

}  // namespace darius::lmtpd
