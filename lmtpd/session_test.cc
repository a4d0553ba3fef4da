// The real LMTP service behind a real ServerHost on loopback, with a real UserStore and mail
// Store in a temp directory, driven by a small blocking client on the test thread: the
// envelope (LHLO, MAIL, RCPT, RSET, VRFY, STARTTLS) and the session's limits. Messages
// (DATA, BDAT, delivery) are in session_delivery_test.cc.
#include "lmtpd/session_test_util.h"

namespace darius::lmtpd {
namespace session_test {

using test::Client;
using test::LmtpTest;
using namespace std::chrono_literals;

constexpr auto kGoAhead = "354 Start mail input; end with <CRLF>.<CRLF>";

TEST_F(LmtpTest, LhloListsExtensions) {
  start();
  auto c = connect();
  c->send("LHLO client.example\r\n");
  EXPECT_EQ(c->reply(),
            (std::vector<std::string>{"250-lmtp.example.org", "250-PIPELINING",
                                      "250-ENHANCEDSTATUSCODES", "250-8BITMIME", "250-CHUNKING",
                                      "250-BINARYMIME", "250-SMTPUTF8", "250-STARTTLS",
                                      "250 SIZE 10000"}));
  auto n = connect(no_tls_port_);
  n->send("lhlo client.example\r\n");
  auto r = n->reply();
  EXPECT_EQ(std::find(r.begin(), r.end(), "250-STARTTLS"), r.end());
  EXPECT_EQ(n->command("LHLO"), "501 5.5.4 Exactly one host name expected");
}

TEST_F(LmtpTest, HeloAndEhloAreRefused) {
  start();
  auto c = connect();
  EXPECT_EQ(c->command("HELO client"), "500 5.5.1 This is an LMTP server: use LHLO (RFC 2033)");
  EXPECT_EQ(c->command("EHLO client"), "500 5.5.1 This is an LMTP server: use LHLO (RFC 2033)");
}

TEST_F(LmtpTest, FullEnvelopeThenAnEmptyMessage) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("MAIL FROM:<sender@example.com> SIZE=500 BODY=8BITMIME"),
            "250 2.1.0 Sender <sender@example.com> OK");
  EXPECT_EQ(c->command("RCPT TO:<alice@localhost>"),
            "250 2.1.5 <alice@localhost> Recipient OK");
  EXPECT_EQ(c->command("RCPT TO:<nosuch@example.org>"),
            "550 5.1.1 <nosuch@example.org> User unknown");
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  EXPECT_EQ(c->command("."), "250 2.0.0 <alice@localhost> Delivered");
  // The transaction is over: a new one can start.
  EXPECT_EQ(c->command("MAIL FROM:<>"), "250 2.1.0 Sender <> OK");
  EXPECT_EQ(c->command("QUIT"), "221 2.0.0 lmtp.example.org closing connection");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(LmtpTest, RecipientResolution) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("MAIL FROM:<>"), "250 2.1.0 Sender <> OK");
  // +detail is dropped; user@domain wins when it exists, else the bare local part.
  EXPECT_EQ(c->command("RCPT TO:<alice+lists@anywhere.example>").substr(0, 3), "250");
  EXPECT_EQ(c->command("RCPT TO:<bob+x@EXAMPLE.org>").substr(0, 3), "250");
  EXPECT_EQ(c->command("RCPT TO:<bob@other.example>").substr(0, 3), "250");
  EXPECT_EQ(c->command("RCPT TO:<\"alice\"@localhost>").substr(0, 3), "250");
  // example.org has users of its own (bob@example.org): with virtual domains it is its own
  // world, and its alice is nobody, never the default domain's alice (issue 17).
  EXPECT_EQ(c->command("RCPT TO:<alice@example.org>"),
            "550 5.1.1 <alice@example.org> User unknown");
  EXPECT_EQ(c->command("RCPT TO:<alice+x@EXAMPLE.org>").substr(0, 3), "550");
  EXPECT_EQ(c->command("RCPT TO:<Alice@example.org>"),
            "550 5.1.1 <Alice@example.org> User unknown");
  EXPECT_EQ(c->command("RCPT TO:<+alice@example.org>"),
            "550 5.1.1 <+alice@example.org> User unknown");
  EXPECT_EQ(c->command("RCPT TO:<Postmaster>"), "550 5.1.1 <Postmaster> User unknown");
  EXPECT_EQ(c->command("RCPT TO:<alice@[192.0.2.1]>").substr(0, 3), "250");
}

// A bare local part is a user of the default domain, as Cyrus and Dovecot take it.
TEST_F(LmtpTest, BareLocalPartIsAUserOfTheDefaultDomain) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("MAIL FROM:<>"), "250 2.1.0 Sender <> OK");
  EXPECT_EQ(c->command("RCPT TO:<alice>"), "250 2.1.5 <alice> Recipient OK");
  EXPECT_EQ(c->command("RCPT TO:<bob+lists>"), "250 2.1.5 <bob+lists> Recipient OK");
  EXPECT_EQ(c->command("RCPT TO:<ghost>"), "550 5.1.1 <ghost> User unknown");
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  c->send("Subject: bare\r\n\r\nx\r\n.\r\n");
  EXPECT_EQ(c->line(), "250 2.0.0 <alice> Delivered");
  EXPECT_EQ(c->line(), "250 2.0.0 <bob+lists> Delivered");
  EXPECT_EQ(messages("user/alice").size(), 1u);
  EXPECT_EQ(messages("user/bob").size(), 1u);  // "bob", not bob@example.org
}

// With defaultdomain, "carol" is carol@<defaultdomain>, as RCPT TO:<carol@example.net> is.
TEST_F(LmtpTest, BareLocalPartTakesTheDefaultDomain) {
  namespace_.default_domain = "Example.NET";
  ASSERT_TRUE(users_->add("carol@example.net", "pw-carol").isOk());
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("MAIL FROM:<>").substr(0, 3), "250");
  EXPECT_EQ(c->command("RCPT TO:<carol>"), "250 2.1.5 <carol> Recipient OK");
  EXPECT_EQ(c->command("RCPT TO:<alice>"), "250 2.1.5 <alice> Recipient OK");  // then alone
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  c->send("Subject: default domain\r\n\r\nx\r\n.\r\n");
  EXPECT_EQ(c->line(), "250 2.0.0 <carol> Delivered");
  EXPECT_EQ(c->line(), "250 2.0.0 <alice> Delivered");
  EXPECT_EQ(messages("user/carol").size(), 1u);  // the default domain is stored without one
}

// lmtp_strict_rcpt: RFC 5321's refusal, as before; <Postmaster> is still a valid path.
TEST_F(LmtpTest, StrictRcptRefusesABareLocalPart) {
  options_.strict_rcpt = true;
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("MAIL FROM:<>").substr(0, 3), "250");
  EXPECT_EQ(c->command("RCPT TO:<alice>"), "501 5.1.3 Bad address syntax");
  EXPECT_EQ(c->command("RCPT TO:<Postmaster>"), "550 5.1.1 <Postmaster> User unknown");
  EXPECT_EQ(c->command("RCPT TO:<alice@localhost>").substr(0, 3), "250");
}

TEST_F(LmtpTest, BrokenUserStoreIsATemporaryFailure) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("MAIL FROM:<>").substr(0, 3), "250");
  std::ofstream(dir_ + "/users") << "this is not a users file\n";
  EXPECT_EQ(c->command("RCPT TO:<alice@example.org>"),
            "451 4.3.0 <alice@example.org> Temporary failure looking up the recipient");
}

TEST_F(LmtpTest, LhloAndRsetEndTheTransaction) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c>").substr(0, 3), "250");
  EXPECT_EQ(c->command("RCPT TO:<alice@b.c>").substr(0, 3), "250");
  c->send("LHLO again.example\r\n");
  EXPECT_EQ(c->reply().back(), "250 SIZE 10000");
  EXPECT_EQ(c->command("RCPT TO:<alice@b.c>"), "503 5.5.1 Send MAIL first");
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c>").substr(0, 3), "250");
  EXPECT_EQ(c->command("RSET"), "250 2.0.0 OK");
  EXPECT_EQ(c->command("DATA"), "503 5.5.1 Send MAIL first");
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c>").substr(0, 3), "250");
}

TEST_F(LmtpTest, ShutdownInterruptsAnIdleSession) {
  start();
  auto c = greeted();
  host_->stop();
  EXPECT_EQ(c->line(), "421 4.3.2 lmtp.example.org Server shutting down");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(LmtpTest, SequenceErrors) {
  start();
  auto c = connect();
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c>"), "503 5.5.1 Send LHLO first");
  EXPECT_EQ(c->command("RCPT TO:<alice@b.c>"), "503 5.5.1 Send LHLO first");
  EXPECT_EQ(c->command("DATA"), "503 5.5.1 Send LHLO first");
  c->send("LHLO x\r\n");
  c->reply();
  EXPECT_EQ(c->command("RCPT TO:<alice@b.c>"), "503 5.5.1 Send MAIL first");
  EXPECT_EQ(c->command("DATA"), "503 5.5.1 Send MAIL first");
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c>").substr(0, 3), "250");
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c>"), "503 5.5.1 Sender already specified");
  EXPECT_EQ(c->command("DATA"), "503 5.5.1 No valid recipients");
  EXPECT_EQ(c->command("RCPT TO:<nobody@b.c>").substr(0, 3), "550");
  EXPECT_EQ(c->command("DATA"), "503 5.5.1 No valid recipients");
  EXPECT_EQ(c->command("RSET"), "250 2.0.0 OK");
  EXPECT_EQ(c->command("RCPT TO:<alice@b.c>"), "503 5.5.1 Send MAIL first");
}

TEST_F(LmtpTest, SyntaxErrors) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("FROB"), "500 5.5.2 Command unrecognized");
  EXPECT_EQ(c->command("MAIL FROM:<bad address@x.y>"), "501 5.1.7 Bad address syntax");
  EXPECT_EQ(c->command("MAIL FROM:sender@x.y"), "501 5.5.4 Path must be in angle brackets");
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c> RET=FULL"), "555 5.5.4 Parameter not supported");
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c> BODY=QUOTED"),
            "501 5.5.4 BODY must be 7BIT, 8BITMIME or BINARYMIME");
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c> SMTPUTF8=yes"), "501 5.5.4 Bad SMTPUTF8 parameter");
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c>").substr(0, 3), "250");
  EXPECT_EQ(c->command("RCPT TO:<no..local-part>"), "501 5.1.3 Bad address syntax");
  EXPECT_EQ(c->command("RCPT TO:<alice@x.y> NOTIFY=NEVER"), "555 5.5.4 Parameter not supported");
  EXPECT_EQ(c->command("DATA now"), "503 5.5.1 No valid recipients");
  EXPECT_EQ(c->command("RSET all"), "501 5.5.4 No parameters allowed");
  EXPECT_EQ(c->command("QUIT now"), "501 5.5.4 No parameters allowed");
}

TEST_F(LmtpTest, SizeLimitAtMail) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c> SIZE=10001"),
            "552 5.3.4 Message size exceeds fixed maximum message size");
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c> SIZE=10000").substr(0, 3), "250");
}

TEST_F(LmtpTest, RecipientCap) {
  options_.max_recipients = 3;
  start();
  auto c = greeted();
  c->send("MAIL FROM:<a@b.c>\r\n");
  std::string batch;
  for (int i = 0; i < 4; ++i) batch += "RCPT TO:<alice@localhost>\r\n";
  c->send(batch);
  EXPECT_EQ(c->line().substr(0, 3), "250");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(c->line().substr(0, 3), "250");
  EXPECT_EQ(c->line(), "452 4.5.3 Too many recipients");
}

TEST_F(LmtpTest, PipelinedTransaction) {
  start();
  auto c = connect();
  // RFC 2920: everything up to DATA in one write; one reply per command, in order.
  c->send(
      "LHLO client.example\r\nMAIL FROM:<s@x.y>\r\nRCPT TO:<alice@x.y>\r\n"
      "RCPT TO:<ghost@x.y>\r\nRCPT TO:<bob@x.y>\r\nNOOP\r\nDATA\r\n");
  EXPECT_EQ(c->reply().back(), "250 SIZE 10000");
  EXPECT_EQ(c->line(), "250 2.1.0 Sender <s@x.y> OK");
  EXPECT_EQ(c->line(), "250 2.1.5 <alice@x.y> Recipient OK");
  EXPECT_EQ(c->line(), "550 5.1.1 <ghost@x.y> User unknown");
  EXPECT_EQ(c->line(), "250 2.1.5 <bob@x.y> Recipient OK");
  EXPECT_EQ(c->line(), "250 2.0.0 OK");
  EXPECT_EQ(c->line(), kGoAhead);
}

TEST_F(LmtpTest, VrfyIsDisabledByDefault) {
  start();
  auto c = connect();
  EXPECT_EQ(c->command("VRFY alice"), "502 5.5.1 VRFY command is disabled");
  EXPECT_EQ(c->command("VRFY"), "501 5.5.4 Argument required");
}

TEST_F(LmtpTest, VrfyEnabledRevealsNothing) {
  options_.vrfy_enabled = true;
  start();
  auto c = connect();
  for (const char* who : {"alice", "nosuch"}) {
    EXPECT_EQ(c->command(std::string("VRFY ") + who),
              "252 2.1.5 Cannot VRFY user, but will accept message and attempt delivery");
  }
}

TEST_F(LmtpTest, StartTlsResetsTheSession) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c>").substr(0, 3), "250");
  EXPECT_EQ(c->command("STARTTLS"), "220 2.0.0 Ready to start TLS");
  c->handshake();
  // RFC 3207 §4.2: LHLO must be sent again and the transaction is gone.
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c>"), "503 5.5.1 Send LHLO first");
  c->send("LHLO client.example\r\n");
  auto r = c->reply();
  EXPECT_EQ(std::find(r.begin(), r.end(), "250-STARTTLS"), r.end());
  EXPECT_EQ(c->command("STARTTLS"), "503 5.5.1 TLS already active");
  EXPECT_EQ(c->command("MAIL FROM:<a@b.c>").substr(0, 3), "250");
}

TEST_F(LmtpTest, StartTlsRefusesPipelinedPlaintext) {
  start();
  auto c = greeted();
  c->send("STARTTLS\r\nMAIL FROM:<evil@x.y>\r\n");
  EXPECT_EQ(c->line(), "220 2.0.0 Ready to start TLS");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(LmtpTest, StartTlsUnavailableOrMalformed) {
  start();
  auto c = greeted(no_tls_port_);
  EXPECT_EQ(c->command("STARTTLS"), "502 5.5.1 STARTTLS not available: TLS is not configured");
  EXPECT_EQ(c->command("STARTTLS now"), "501 5.5.4 No parameters allowed");
}

TEST_F(LmtpTest, OverlongLine) {
  start();
  auto c = greeted();
  c->send("RCPT TO:<" + std::string(3000, 'a') + "@x.y>\r\nNOOP\r\n");
  EXPECT_EQ(c->line(), "500 5.5.2 Line too long");
  EXPECT_EQ(c->line(), "250 2.0.0 OK");
}

TEST_F(LmtpTest, TooManyErrorsClose) {
  start();
  auto c = connect();
  std::string batch;
  for (int i = 0; i < Session::kMaxErrors; ++i) batch += "FROB\r\n";
  c->send(batch);
  for (int i = 1; i < Session::kMaxErrors; ++i) {
    EXPECT_EQ(c->line(), "500 5.5.2 Command unrecognized");
  }
  EXPECT_EQ(c->line(), "421 4.7.0 lmtp.example.org Too many errors, closing connection");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(LmtpTest, IdleTimeout) {
  options_.timeout = 300ms;
  start();
  auto c = connect();
  EXPECT_EQ(c->line(), "421 4.4.2 lmtp.example.org Idle timeout, closing connection");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(LmtpTest, CommandsAreCounted) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("RSET"), "250 2.0.0 OK");
  EXPECT_EQ(c->command("QUIT").substr(0, 3), "221");
  EXPECT_EQ(c->line(), "<eof>");
  std::string m = host_->metrics().render();
  EXPECT_NE(m.find("darius_commands_total{service=\"lmtp\",command=\"LHLO\"} 1"), std::string::npos)
      << m;
  EXPECT_NE(m.find("darius_commands_total{service=\"lmtp\",command=\"RSET\"} 1"),
            std::string::npos);
}

}  // namespace session_test
}  // namespace darius::lmtpd
