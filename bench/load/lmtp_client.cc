// bench/load: LMTP and POP3 clients (see lmtp_client.h).
#include "bench/load/lmtp_client.h"

#include <cstdlib>
#include <cstring>

#include "bench/load/common.h"

namespace darius::bench {

void dotStuff(std::string_view m, std::string& out) {
  out.reserve(out.size() + m.size() + 8);
  size_t start = 0;
  if (!m.empty() && m[0] == '.') out += '.';
  for (;;) {
    size_t p = m.find("\r\n.", start);
    if (p == std::string_view::npos) break;
    out.append(m.substr(start, p + 2 - start));
    out += '.';
    start = p + 2;
  }
  out.append(m.substr(start));
}

LmtpClient LmtpClient::connect(const std::string& host, int port, double timeout_s) {
  return LmtpClient(Conn::connectTcp(host, port, timeout_s));
}

std::string LmtpClient::reply() {
  for (;;) {
    std::string line = conn_.readLine();
    if (line.size() < 3) throw WorkloadError("bad LMTP reply: " + line);
    if (line.size() > 3 && line[3] == '-') {
      if (line.find("PIPELINING") != std::string::npos) pipelining_ = true;
      continue;
    }
    if (line.find("PIPELINING") != std::string::npos) pipelining_ = true;
    return line;
  }
}

LmtpClient::LmtpClient(Conn c) : conn_(std::move(c)) {
  std::string g = reply();
  if (g[0] != '2') throw WorkloadError("LMTP greeting: " + g);
  conn_.writeAll("LHLO bench.localhost\r\n");
  std::string l = reply();
  if (l[0] != '2') throw WorkloadError("LHLO: " + l);
}

LmtpClient::Outcome LmtpClient::deliver(std::string_view message, const std::vector<std::string>& rcpts,
                                        std::string_view msgid_tag) {
  Outcome o;
  std::string env = "MAIL FROM:<bench-sender@example.org>\r\n";
  for (auto& r : rcpts) env += "RCPT TO:<" + r + ">\r\n";
  env += "DATA\r\n";
  size_t rcpt_ok = 0;
  auto checkEnvelope = [&](const std::string& mail, const std::vector<std::string>& rr) {
    if (mail[0] != '2') throw WorkloadError("MAIL FROM: " + mail);
    for (auto& r : rr) {
      if (r[0] == '2') ++rcpt_ok;
      else if (o.failure.empty()) o.failure = "RCPT: " + r;
    }
  };
  std::string data_reply;
  if (pipelining_) {
    conn_.writeAll(env);
    std::string mail = reply();
    std::vector<std::string> rr;
    for (size_t i = 0; i < rcpts.size(); ++i) rr.push_back(reply());
    data_reply = reply();
    checkEnvelope(mail, rr);
  } else {
    conn_.writeAll("MAIL FROM:<bench-sender@example.org>\r\n");
    std::string mail = reply();
    if (mail[0] != '2') throw WorkloadError("MAIL FROM: " + mail);
    std::vector<std::string> rr;
    for (auto& r : rcpts) {
      conn_.writeAll("RCPT TO:<" + r + ">\r\n");
      rr.push_back(reply());
    }
    checkEnvelope(mail, rr);
    if (rcpt_ok == 0) {
      conn_.writeAll("RSET\r\n");
      reply();
      return o;
    }
    conn_.writeAll("DATA\r\n");
    data_reply = reply();
  }
  if (data_reply[0] != '3') {
    if (rcpt_ok == 0) return o;  // RFC 2033: DATA fails when no recipient was accepted
    throw WorkloadError("DATA: " + data_reply);
  }
  std::string body;
  if (!msgid_tag.empty()) {
    // Splice the tag into the Message-ID header so each delivery has a unique id.
    size_t p = std::string_view::npos;
    for (std::string_view h : {"Message-ID: <", "Message-Id: <"}) {
      if (message.substr(0, h.size()) == h) p = 0;
      else if (size_t q = message.find("\r\n" + std::string(h)); q != std::string_view::npos) p = q + 2;
      if (p != std::string_view::npos) break;
    }
    size_t head_end = message.find("\r\n\r\n");
    if (p != std::string_view::npos && p < head_end) {
      p += 13;
      std::string tagged(message.substr(0, p));
      tagged.append(msgid_tag);
      tagged += '.';
      tagged.append(message.substr(p));
      dotStuff(tagged, body);
    } else {
      dotStuff(message, body);
    }
  } else {
    dotStuff(message, body);
  }
  body += ".\r\n";
  conn_.writeAll(body);
  for (size_t i = 0; i < rcpt_ok; ++i) {
    std::string r = reply();
    if (r[0] == '2') ++o.accepted;
    else if (o.failure.empty()) o.failure = "after DATA: " + r;
  }
  return o;
}

void LmtpClient::quit() {
  try {
    conn_.writeAll("QUIT\r\n");
    reply();
  } catch (const WorkloadError&) {
  }
  conn_.close();
}

Pop3Client Pop3Client::connect(const std::string& host, int port, double timeout_s) {
  return Pop3Client(Conn::connectTcp(host, port, timeout_s));
}

Pop3Client::Pop3Client(Conn c) : conn_(std::move(c)) {
  std::string g = conn_.readLine();
  if (g.rfind("+OK", 0) != 0) throw WorkloadError("POP3 greeting: " + g.substr(0, 200));
}

std::string Pop3Client::okLine(const std::string& cmd) {
  conn_.writeAll(cmd + "\r\n");
  std::string l = conn_.readLine();
  if (l.rfind("+OK", 0) != 0) {
    std::string verb = cmd.substr(0, cmd.find(' '));
    throw WorkloadError(verb + ": " + l.substr(0, 200));
  }
  return l;
}

void Pop3Client::login(const std::string& user, const std::string& password) {
  okLine("USER " + user);
  okLine("PASS " + password);
}

std::pair<size_t, uint64_t> Pop3Client::stat() {
  std::string l = okLine("STAT");
  char* end = nullptr;
  size_t n = std::strtoul(l.c_str() + 3, &end, 10);
  uint64_t octets = std::strtoull(end, nullptr, 10);
  return {n, octets};
}

std::vector<uint64_t> Pop3Client::list() {
  okLine("LIST");
  std::vector<uint64_t> sizes;
  for (;;) {
    std::string l = conn_.readLine();
    if (l == ".") return sizes;
    char* end = nullptr;
    size_t n = std::strtoul(l.c_str(), &end, 10);
    if (n != sizes.size() + 1) throw WorkloadError("LIST out of order: " + l);
    sizes.push_back(std::strtoull(end, nullptr, 10));
  }
}

uint64_t Pop3Client::retr(size_t n) {
  okLine("RETR " + std::to_string(n));
  uint64_t bytes = 0;
  for (;;) {
    std::string l = conn_.readLine();
    if (l == ".") return bytes;
    size_t skip = (!l.empty() && l[0] == '.') ? 1 : 0;  // un-stuff
    bytes += l.size() - skip + 2;
  }
}

void Pop3Client::quit() {
  try {
    okLine("QUIT");
  } catch (const WorkloadError&) {
  }
  conn_.close();
}

}  // namespace darius::bench
