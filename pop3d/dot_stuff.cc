#include "pop3d/dot_stuff.h"

#include "lib/base/byte_set.h"

namespace darius::pop3d {

namespace {
constexpr base::ByteSet kLineEnds("\r\n");
}  // namespace

void DotStuffer::endLine(std::string& out) {
  out += "\r\n";
  const bool empty_line = at_line_start_;
  at_line_start_ = true;
  if (in_header_) {
    if (!empty_line) return;
    in_header_ = false;  // RFC 5322 §2.1: the first empty line ends the header
    if (limit_ && left_ == 0) done_ = true;
    return;
  }
  if (limit_ && --left_ == 0) done_ = true;
}

bool DotStuffer::feed(std::string_view in, std::string& out) {
  size_t i = 0;
  while (i < in.size() && !done_) {
    const char c = in[i];
    if (pending_cr_) {
      pending_cr_ = false;
      endLine(out);
      if (c == '\n') ++i;  // CRLF; otherwise a bare CR ended the line and c starts the next
      continue;
    }
    if (c == '\r') {
      pending_cr_ = true;
      ++i;
      continue;
    }
    if (c == '\n') {  // a bare LF
      endLine(out);
      ++i;
      continue;
    }
    size_t end = kLineEnds.findIn(in, i);
    if (end == std::string_view::npos) end = in.size();
    if (at_line_start_) {
      if (c == '.') out += '.';  // RFC 1939 §3: byte-stuff the termination octet
      at_line_start_ = false;
    }
    out.append(in.substr(i, end - i));
    i = end;
  }
  return !done_;
}

void DotStuffer::finish(std::string& out) {
  if (!done_) {
    if (pending_cr_) {
      pending_cr_ = false;
      endLine(out);
    } else if (!at_line_start_) {
      out += "\r\n";  // the message ended without a line end
    }
  }
  out += ".\r\n";
}

}  // namespace darius::pop3d
