// The multi-line body of a POP3 RETR or TOP reply (RFC 1939 §3): the message's lines with
// CRLF line ends, each line that starts with "." given one more ".", then the terminating
// ".\r\n". TOP (RFC 1939 §7) stops after the header, the blank line and n body lines.
//
// It works on chunks as they are read from the message file, so RETR streams a message of
// any size through a small buffer. Store files are canonical CRLF already; a bare LF or bare
// CR (a file put there by hand, or a BINARYMIME body) still goes out as CRLF, since the wire
// has no other line end.
//
// Ownership: a value. Thread-safety: none; one per reply.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace darius::pop3d {

class DotStuffer {
 public:
  // nullopt: the whole message (RETR); n: the header and n body lines (TOP).
  explicit DotStuffer(std::optional<uint32_t> body_lines = std::nullopt)
      : limit_(body_lines), left_(body_lines.value_or(0)) {}

  // Appends the reply form of `in` (the next bytes of the message) to `out`. False once TOP
  // has sent all it wants: the caller can stop reading.
  bool feed(std::string_view in, std::string& out);
  // Ends an unterminated last line and appends ".\r\n".
  void finish(std::string& out);

 private:
  void endLine(std::string& out);

  const std::optional<uint32_t> limit_;
  uint32_t left_;
  bool at_line_start_ = true;
  bool in_header_ = true;
  bool pending_cr_ = false;
  bool done_ = false;
};

}  // namespace darius::pop3d
