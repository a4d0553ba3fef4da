// Fuzzes the LMTP command grammar (lmtpd/command.h): each input line goes through
// parseCommand() and parseMailbox(). Invariants: no crash; an accepted MAIL/RCPT has a path
// within the RFC 5321 §4.5.3.1 limits made of printable ASCII, or of well-formed UTF-8 and
// then flagged `utf8` (RFC 6531; it is echoed in replies), RCPT always has a mailbox, and the
// mailbox parsed from the path is the one the command carries; a mailbox without a domain is
// <Postmaster> or a bare local part (RCPT only, 1 to 64 octets, no "@"); BDAT has a size.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/base/utf8.h"
#include "lmtpd/command.h"

namespace {

using darius::lmtpd::Command;
using darius::lmtpd::SyntaxError;
using darius::lmtpd::Verb;

void checkMailbox(std::string_view text) {
  auto m = darius::lmtpd::parseMailbox(text);
  if (!m) return;
  if (m->local.size() > 64 || m->domain.empty() || m->domain.size() > 255) std::abort();
}

void check(std::string_view line) {
  Command c = darius::lmtpd::parseCommand(line);
  if (darius::lmtpd::verbName(c.verb).empty()) std::abort();
  if ((c.verb == Verb::kUnknown) != (c.error == SyntaxError::kUnknownCommand)) std::abort();
  if (c.error != SyntaxError::kNone && c.error_text.empty()) std::abort();
  if (c.error == SyntaxError::kNone && (c.verb == Verb::kMail || c.verb == Verb::kRcpt)) {
    if (c.path.size() > 254) std::abort();
    bool non_ascii = false;
    for (char ch : c.path) {
      auto u = static_cast<unsigned char>(ch);
      if (u < 0x21 && ch != ' ') std::abort();
      if (u == 0x7f) std::abort();
      non_ascii = non_ascii || u > 0x7f;
    }
    if (non_ascii != c.utf8) std::abort();
    if (c.utf8 && !darius::base::isValidUtf8(c.path)) std::abort();
    if (c.verb == Verb::kRcpt && !c.mailbox) std::abort();
    if (c.verb == Verb::kMail && c.mailbox.has_value() == c.path.empty()) std::abort();
    if (c.mailbox && !c.mailbox->domain.empty()) {
      auto again = darius::lmtpd::parseMailbox(c.path);
      if (!again || again->local != c.mailbox->local || again->domain != c.mailbox->domain) {
        std::abort();
      }
    }
    if (c.bare_local) {
      const std::string& local = c.mailbox->local;
      if (c.verb != Verb::kRcpt || !c.mailbox->domain.empty()) std::abort();
      if (local.empty() || local.size() > 64 || local.find('@') != std::string::npos) {
        std::abort();
      }
    } else if (c.mailbox && c.mailbox->domain.empty() && c.mailbox->local != "postmaster") {
      std::abort();
    }
  }
  if (c.error == SyntaxError::kNone && c.verb == Verb::kBdat && c.text.size() != 0) std::abort();
  checkMailbox(line);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  check(in);
  size_t start = 0;
  while (start <= in.size()) {
    size_t lf = in.find('\n', start);
    if (lf == std::string_view::npos) lf = in.size();
    std::string_view line = in.substr(start, lf - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    check(line);
    start = lf + 1;
  }
  return 0;
}
