// Fuzzes the RETR/TOP body writer (pop3d/dot_stuff.h): the first byte picks the chunk size
// and RETR or TOP, the rest is a message file. Invariants: no crash; the reply ends with
// ".\r\n" and has no bare CR or LF; for RETR, undoing the dot-stuffing as a client does gives
// back the file with every line end made CRLF (and a last line end added); for TOP, the reply
// (less its terminator) is a prefix of the RETR reply.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "pop3d/dot_stuff.h"

namespace {

using darius::pop3d::DotStuffer;

std::string run(std::string_view in, std::optional<uint32_t> lines, size_t step) {
  DotStuffer s(lines);
  std::string out;
  for (size_t i = 0; i < in.size(); i += step) {
    if (!s.feed(in.substr(i, step), out)) break;
  }
  s.finish(out);
  return out;
}

// The file with CRLF, bare CR and bare LF all made CRLF, ending in CRLF unless empty.
std::string normalised(std::string_view in) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\r') {
      if (i + 1 < in.size() && in[i + 1] == '\n') ++i;
      out += "\r\n";
    } else if (in[i] == '\n') {
      out += "\r\n";
    } else {
      out += in[i];
    }
  }
  if (!out.empty() && !out.ends_with("\r\n")) out += "\r\n";
  return out;
}

// What a POP3 client does: lines up to the lone ".", one leading "." removed from each.
std::string unstuffed(std::string_view reply) {
  std::string out;
  size_t pos = 0;
  for (;;) {
    size_t end = reply.find("\r\n", pos);
    if (end == std::string_view::npos) std::abort();
    std::string_view line = reply.substr(pos, end - pos);
    pos = end + 2;
    if (line == ".") {
      if (pos != reply.size()) std::abort();
      return out;
    }
    if (!line.empty() && line[0] == '.') line.remove_prefix(1);
    out.append(line);
    out += "\r\n";
  }
}

void checkWire(std::string_view reply) {
  if (reply.size() < 3 || reply.substr(reply.size() - 3) != ".\r\n") std::abort();
  for (size_t i = 0; i < reply.size(); ++i) {
    if (reply[i] == '\r' && (i + 1 >= reply.size() || reply[i + 1] != '\n')) std::abort();
    if (reply[i] == '\n' && (i == 0 || reply[i - 1] != '\r')) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t step = (data[0] & 0x1f) + 1;
  std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string retr = run(in, std::nullopt, step);
  checkWire(retr);
  if (unstuffed(retr) != normalised(in)) std::abort();
  std::string top = run(in, data[0] >> 5, step);
  checkWire(top);
  std::string_view top_body(top.data(), top.size() - 3);
  if (retr.compare(0, top_body.size(), top_body) != 0) std::abort();
  return 0;
}
