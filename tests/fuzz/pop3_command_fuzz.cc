// Fuzzes the POP3 command grammar (pop3d/command.h): each input line goes through
// parseCommand(), parseSaslResponse() and decodeInitialResponse(). Invariants: no crash, a
// command without error has the arguments its verb needs, and the strict base64 decoding
// accepts only canonical text (re-encoding what it accepted gives the input back).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lib/base/base64.h"
#include "pop3d/command.h"

namespace {

using darius::pop3d::Command;
using darius::pop3d::SyntaxError;
using darius::pop3d::Verb;

void check(std::string_view line) {
  Command c = darius::pop3d::parseCommand(line);
  if (darius::pop3d::verbName(c.verb).empty()) std::abort();
  if ((c.verb == Verb::kUnknown) != (c.error == SyntaxError::kUnknownCommand)) std::abort();
  if (c.error != SyntaxError::kNone && c.error_text.empty()) std::abort();
  if (c.error == SyntaxError::kNone) {
    switch (c.verb) {
      case Verb::kUser:
      case Verb::kPass:
        if (c.text.empty()) std::abort();
        break;
      case Verb::kRetr:
      case Verb::kDele:
      case Verb::kTop:
        if (!c.msg || *c.msg == 0) std::abort();
        break;
      case Verb::kAuth:
        if (c.initial_response && c.text.empty()) std::abort();
        break;
      default:
        break;
    }
    for (char ch : c.text) {
      if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) std::abort();
    }
  }
  auto r = darius::pop3d::parseSaslResponse(line);
  if (r.ok() && *r && darius::base::base64Encode(**r) != line) std::abort();
  if (r.ok() && !*r && line != "*") std::abort();
  auto i = darius::pop3d::decodeInitialResponse(line);
  if (i.ok() && line != "=" && darius::base::base64Encode(*i) != line) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  check(in);  // the whole input as one line: the reader never splits at a bare CR
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
