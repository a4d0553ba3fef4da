// bench/load: LMTP (RFC 2033) and POP3 (RFC 1939) clients for the load generator.
//
// LmtpClient::deliver sends MAIL, the RCPTs and DATA pipelined when the server announces
// PIPELINING (RFC 2920), dot-stuffs the message (RFC 5321 §4.5.2), and reads one reply per
// accepted recipient after the final dot (RFC 2033 §4.2). An optional tag is spliced into
// the Message-ID ("<tag.original>") so that a corpus message delivered twice to one user is
// not a duplicate to servers with duplicate suppression.
//
// Pop3Client reads multi-line replies, un-stuffs leading dots, and counts the bytes of a
// RETR without keeping them.
//
// Ownership: each client owns its Conn. Not thread-safe: one thread per client. Server
// failures throw WorkloadError.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bench/load/conn.h"

namespace darius::bench {

class LmtpClient {
 public:
  static LmtpClient connect(const std::string& host, int port, double timeout_s);
  explicit LmtpClient(Conn c);  // reads the greeting, sends LHLO

  struct Outcome {
    size_t accepted = 0;   // recipients with a 2xx after DATA
    std::string failure;   // first non-2xx reply, empty if none
  };
  // Delivers `message` (CRLF form) to `rcpts`. Throws WorkloadError on a protocol failure
  // (MAIL refused, EOF); per-recipient refusals are reported in the Outcome.
  Outcome deliver(std::string_view message, const std::vector<std::string>& rcpts,
                  std::string_view msgid_tag = "");
  void quit();

 private:
  // Reads a (multi-line) reply; returns "code text" of its last line.
  std::string reply();

  Conn conn_;
  bool pipelining_ = false;
};

// Appends `message` to `out` dot-stuffed; the message must end in CRLF.
void dotStuff(std::string_view message, std::string& out);

class Pop3Client {
 public:
  static Pop3Client connect(const std::string& host, int port, double timeout_s);
  explicit Pop3Client(Conn c);  // reads the greeting

  void login(const std::string& user, const std::string& password);  // USER/PASS
  std::pair<size_t, uint64_t> stat();                                   // count, octets
  std::vector<uint64_t> list();                                         // sizes, index = msg-1
  // RETR n: returns the size of the message after un-stuffing, in CRLF form.
  uint64_t retr(size_t n);
  void quit();

 private:
  std::string okLine(const std::string& cmd);
  Conn conn_;
};

}  // namespace darius::bench
