// bench/load: "selftest" — checks the load client's own protocol code against canned
// server bytes over a socketpair, so `bench/run.sh --check` catches a broken harness even
// when no server can run a workload: IMAP literals (in ENVELOPE and a BODY[] that contains
// ")" and "{5}"), FETCH item parsing, SEARCH, LMTP pipelining and dot-stuffing, POP3
// un-stuffing, Latencies quantiles. Prints one line per failed case; returns the number of
// failures. Single-threaded apart from nothing: the canned replies are written before the
// client reads them.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>

#include "bench/load/imap_client.h"
#include "bench/load/lmtp_client.h"
#include "bench/load/workloads.h"

namespace darius::bench {

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "selftest FAILED: %s\n", what.c_str());
    ++failures;
  }
}

// A socketpair whose server end already holds `canned`; returns {client fd, server fd}.
std::pair<int, int> pairWith(const std::string& canned) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw HarnessError("socketpair");
  int big = 4 << 20;
  setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
  setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  if (::write(sv[1], canned.data(), canned.size()) != static_cast<ssize_t>(canned.size())) {
    throw HarnessError("selftest write");
  }
  return {sv[0], sv[1]};
}

std::string drain(int fd) {
  fcntl(fd, F_SETFL, O_NONBLOCK);
  std::string out;
  char b[65536];
  for (ssize_t n; (n = ::read(fd, b, sizeof b)) > 0;) out.append(b, static_cast<size_t>(n));
  return out;
}

void imapCases() {
  std::string body = "Subject: x)\r\n\r\nliteral {5}\r\n(not a list\r\n";
  std::string canned =
      "* OK [CAPABILITY IMAP4rev1 LITERAL+ UIDPLUS] ready\r\n"
      "b1 OK [CAPABILITY IMAP4rev1 LITERAL+] Logged in\r\n"
      "* 3 EXISTS\r\n* OK [UIDVALIDITY 42] x\r\n* OK [UIDNEXT 9] x\r\nb2 OK [READ-WRITE] done\r\n"
      "* 1 FETCH (UID 7 RFC822.SIZE " + std::to_string(body.size()) +
      " FLAGS (\\Seen) ENVELOPE (\"date\" {6}\r\nsub\"j)"
      " ((\"A\" NIL \"a\" \"b.c\")) NIL NIL NIL NIL NIL NIL \"<id>\") BODY[] {" +
      std::to_string(body.size()) + "}\r\n" + body + ")\r\n"
      "* 2 FETCH (BODY[HEADER.FIELDS (SUBJECT)] {3}\r\nabc UID 8)\r\n"
      "b3 OK fetched\r\n"
      "* SEARCH 2 3 5\r\nb4 OK search\r\n"
      "b5 NO [TRYCREATE] no\r\n";
  auto [cfd, sfd] = pairWith(canned);
  try {
    ImapClient im{Conn(cfd, 5)};
    im.login("u", "p\"w");
    SelectInfo si = im.select("INBOX");
    expect(si.exists == 3 && si.uidvalidity == 42 && si.uidnext == 9, "SELECT EXISTS/UIDVALIDITY/UIDNEXT");
    std::vector<FetchItems> got;
    im.command("FETCH 1:2 (x)", [&](ImapResponse& r) {
      FetchItems f;
      if (parseFetch(r, f)) got.push_back(f);
    }, LiteralMode::Skip);
    expect(got.size() == 2, "two FETCH responses");
    if (got.size() == 2) {
      const ImapValue* env = got[0].find("ENVELOPE");
      expect(env && env->list.size() == 10, "ENVELOPE has 10 fields");
      const ImapValue* b = got[0].find("BODY[]");
      expect(b && b->literal_size == body.size(), "BODY[] literal size");
      expect(got[0].find("UID") && got[0].find("UID")->s == "7", "UID after literal");
      expect(got[1].find("BODY[HEADER.FIELDS (SUBJECT)]") != nullptr, "section with spaces");
      expect(got[1].find("UID") && got[1].find("UID")->s == "8", "item after small literal");
    }
    auto hits = im.search("TEXT x");
    expect(hits == std::vector<uint32_t>{2, 3, 5}, "SEARCH numbers");
    bool threw = false;
    try {
      im.command("CREATE x");
    } catch (const WorkloadError&) {
      threw = true;
    }
    expect(threw, "NO throws WorkloadError");
    std::string sent = drain(sfd);
    expect(sent.find("b1 LOGIN \"u\" \"p\\\"w\"\r\n") == 0, "LOGIN quoting");
  } catch (const std::exception& e) {
    expect(false, std::string("imap: ") + e.what());
  }
  ::close(sfd);
}

void lmtpCases() {
  std::string canned =
      "220 ready\r\n250-host\r\n250-PIPELINING\r\n250 8BITMIME\r\n"
      "250 sender ok\r\n250 rcpt ok\r\n550 no such user\r\n354 go\r\n250 delivered\r\n";
  auto [cfd, sfd] = pairWith(canned);
  try {
    LmtpClient cl{Conn(cfd, 5)};
    std::string msg = "Message-ID: <a@b>\r\n\r\n.dot line\r\nx\r\n..two\r\n";
    auto out = cl.deliver(msg, {"a@x", "b@x"}, "T1");
    expect(out.accepted == 1 && !out.failure.empty(), "per-recipient replies");
    std::string sent = drain(sfd);
    expect(sent.find("MAIL FROM:<bench-sender@example.org>\r\nRCPT TO:<a@x>\r\nRCPT TO:<b@x>\r\nDATA\r\n") !=
               std::string::npos, "pipelined envelope");
    expect(sent.find("Message-ID: <T1.a@b>\r\n\r\n..dot line\r\nx\r\n...two\r\n.\r\n") != std::string::npos,
           "dot-stuffing and Message-ID tag");
  } catch (const std::exception& e) {
    expect(false, std::string("lmtp: ") + e.what());
  }
  ::close(sfd);
}

void pop3Cases() {
  std::string canned =
      "+OK hi\r\n+OK\r\n+OK\r\n+OK 1 20\r\n+OK\r\n1 20\r\n.\r\n+OK 20 octets\r\n..a\r\nbcdefghijklmn\r\n.\r\n";
  auto [cfd, sfd] = pairWith(canned);
  try {
    Pop3Client p{Conn(cfd, 5)};
    p.login("u", "p");
    auto [n, octets] = p.stat();
    expect(n == 1 && octets == 20, "STAT");
    auto sizes = p.list();
    expect(sizes.size() == 1 && sizes[0] == 20, "LIST");
    expect(p.retr(1) == 19, "RETR un-stuffed size");  // ".a\r\n" + "bcdefghijklmn\r\n"
  } catch (const std::exception& e) {
    expect(false, std::string("pop3: ") + e.what());
  }
  ::close(sfd);
}

}  // namespace

int runSelfTest() {
  imapCases();
  lmtpCases();
  pop3Cases();
  Latencies l;
  for (int i = 1; i <= 100; ++i) l.add(i);
  expect(l.quantile(0.5) == 50 && l.quantile(0.99) == 99 && l.quantile(1) == 100, "quantiles");
  std::string d;
  dotStuff(".a\r\n", d);
  expect(d == "..a\r\n", "leading dot stuffed");
  std::printf("selftest: %d failed\n", failures);
  return failures;
}

}  // namespace darius::bench
