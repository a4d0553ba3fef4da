// The trace fields final delivery adds on top of a message (RFC 5321 §4.4): Return-Path with
// the envelope sender, then a Received field saying who handed the message over, when, and
// with which protocol (RFC 3848 / RFC 6531 §3.7.3 "with" keywords: LMTP, LMTPS, UTF8LMTP,
// UTF8LMTPS).
//
// The message is stored once for every recipient on a partition (single-instance store), so
// the bytes cannot differ by recipient: the "for" clause is written only when there is one.
//
// Ownership: values. Thread-safety: pure functions.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace darius::lmtpd {

struct TraceInfo {
  std::string sender;      // the reverse-path without brackets; "" for <>
  std::string helo;        // the client's LHLO argument
  std::string peer_host;   // "127.0.0.1", "::1", or "unix"
  std::string servername;  // our name
  std::string id;          // session and transaction, an Atom ("12.3")
  bool tls = false;
  bool smtputf8 = false;
  std::optional<std::string> for_path;  // the only recipient's path
  std::time_t when = 0;
};

// "Return-Path: <...>\r\nReceived: from ...;\r\n\t<date>\r\n"
std::string traceHeaders(const TraceInfo& info);

// RFC 5322 §3.3 date-time in local time: "Tue, 1 Jul 2003 10:52:37 +0200".
std::string rfc5322Date(std::time_t when);

}  // namespace darius::lmtpd
