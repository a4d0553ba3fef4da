#include "lmtpd/trace.h"

#include <cstdio>

namespace darius::lmtpd {

namespace {

bool isLdh(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '.';
}

// The LHLO argument is any printable word (lmtpd/command.h); only a plausible domain or
// address literal goes into the field verbatim, so the field stays well-formed.
bool isSafeHelo(std::string_view s) {
  if (s.empty() || s.size() > 255) return false;
  if (s.front() == '[') {
    for (char c : s) {
      if (!isLdh(c) && c != ':' && c != '[' && c != ']') return false;
    }
    return s.back() == ']';
  }
  for (char c : s) {
    if (!isLdh(c)) return false;
  }
  return true;
}

// RFC 5321 §4.1.3 address-literal for the TCP-info of the From clause.
std::string addressLiteral(std::string_view host) {
  if (host.find(':') != std::string_view::npos) return "[IPv6:" + std::string(host) + "]";
  return "[" + std::string(host) + "]";
}

}  // namespace

std::string rfc5322Date(std::time_t when) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm tm{};
  localtime_r(&when, &tm);
  long off = tm.tm_gmtoff / 60;
  char sign = off < 0 ? '-' : '+';
  if (off < 0) off = -off;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %d %s %04d %02d:%02d:%02d %c%02ld%02ld",
                kDays[tm.tm_wday % 7], tm.tm_mday, kMonths[tm.tm_mon % 12], tm.tm_year + 1900,
                tm.tm_hour, tm.tm_min, tm.tm_sec, sign, off / 60, off % 60);
  return buf;
}

std::string traceHeaders(const TraceInfo& info) {
  std::string out = "Return-Path: <" + info.sender + ">\r\n";
  out += "Received: from ";
  const bool unix_peer = info.peer_host == "unix" || info.peer_host.empty();
  if (isSafeHelo(info.helo)) {
    out += info.helo;
    if (!unix_peer) out += " (" + addressLiteral(info.peer_host) + ")";
  } else {
    out += unix_peer ? std::string("localhost") : addressLiteral(info.peer_host);
  }
  out += "\r\n\tby " + info.servername + " (Darius) with ";
  if (info.smtputf8) out += "UTF8";
  out += info.tls ? "LMTPS" : "LMTP";
  out += " id " + info.id;
  if (info.for_path) out += "\r\n\tfor <" + *info.for_path + ">";
  out += ";\r\n\t" + rfc5322Date(info.when) + "\r\n";
  return out;
}

}  // namespace darius::lmtpd
