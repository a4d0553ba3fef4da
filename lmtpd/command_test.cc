// The LMTP command grammar on its own: no sockets, no session.
#include "lmtpd/command.h"

#include <gtest/gtest.h>

namespace darius::lmtpd {
namespace {

TEST(LmtpCommand, Keywords) {
  EXPECT_EQ(parseCommand("lhlo client.example").verb, Verb::kLhlo);
  EXPECT_EQ(parseCommand("LHLO client.example").text, "client.example");
  EXPECT_EQ(parseCommand("data").verb, Verb::kData);
  EXPECT_EQ(parseCommand("StartTLS").verb, Verb::kStartTls);
  EXPECT_EQ(parseCommand("EHLO x").verb, Verb::kEhlo);
  EXPECT_EQ(parseCommand("HELO").error, SyntaxError::kNone);  // refused by the session
  Command u = parseCommand("XBDAT 10 LAST");
  EXPECT_EQ(u.verb, Verb::kUnknown);
  EXPECT_EQ(u.error, SyntaxError::kUnknownCommand);
  EXPECT_EQ(parseCommand("").error, SyntaxError::kUnknownCommand);
}

TEST(LmtpCommand, ArgumentRules) {
  EXPECT_EQ(parseCommand("LHLO").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("LHLO a b").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("DATA x").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("RSET now").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("STARTTLS x").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("DATA ").error, SyntaxError::kNone);  // trailing blanks are dropped
  EXPECT_EQ(parseCommand("NOOP anything at all").error, SyntaxError::kNone);
  EXPECT_EQ(parseCommand("VRFY").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("VRFY alice").text, "alice");
  EXPECT_EQ(parseCommand("NOOP \x01").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("LHLO h\xc3\xa9").error, SyntaxError::kBadArguments);
}

TEST(LmtpCommand, MailFrom) {
  Command c = parseCommand("MAIL FROM:<sender@example.com>");
  EXPECT_EQ(c.error, SyntaxError::kNone);
  EXPECT_EQ(c.path, "sender@example.com");
  ASSERT_TRUE(c.mailbox);
  EXPECT_EQ(c.mailbox->local, "sender");
  EXPECT_EQ(c.mailbox->domain, "example.com");
  Command null = parseCommand("mail from:<>");
  EXPECT_EQ(null.error, SyntaxError::kNone);
  EXPECT_FALSE(null.mailbox);
  EXPECT_EQ(parseCommand("MAIL FROM: <a@b.c>").error, SyntaxError::kNone);  // leniency
  EXPECT_EQ(parseCommand("MAIL FROM:a@b.c").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("MAIL TO:<a@b.c>").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("MAIL").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("MAIL FROM:<a@b.c").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("MAIL FROM:<a@b.c>x").error, SyntaxError::kBadArguments);
}

TEST(LmtpCommand, MailParameters) {
  Command c = parseCommand("MAIL FROM:<a@b.c> SIZE=12345 BODY=8BITMIME");
  EXPECT_EQ(c.error, SyntaxError::kNone);
  EXPECT_EQ(*c.size, 12345u);
  EXPECT_EQ(c.body, BodyType::k8BitMime);
  EXPECT_EQ(parseCommand("MAIL FROM:<a@b.c> body=7bit").body, BodyType::k7Bit);
  EXPECT_EQ(*parseCommand("MAIL FROM:<> SIZE=99999999999999999999").size, UINT64_MAX);
  for (const char* bad :
       {"MAIL FROM:<a@b.c> SIZE=", "MAIL FROM:<a@b.c> SIZE=12a", "MAIL FROM:<a@b.c> SIZE=1 SIZE=2",
        "MAIL FROM:<a@b.c> SIZE", "MAIL FROM:<a@b.c> BODY=BINARY",
        "MAIL FROM:<a@b.c> SMTPUTF8=1", "MAIL FROM:<a@b.c> SMTPUTF8 SMTPUTF8",
        "MAIL FROM:<a@b.c> BODY=7BIT BODY=7BIT", "MAIL FROM:<a@b.c> SIZE=123456789012345678901",
        "MAIL FROM:<a@b.c> =x", "MAIL FROM:<a@b.c> X_Y=1"}) {
    EXPECT_EQ(parseCommand(bad).error, SyntaxError::kBadArguments) << bad;
  }
  Command u = parseCommand("MAIL FROM:<a@b.c> smtputf8 BODY=BINARYMIME");
  EXPECT_EQ(u.error, SyntaxError::kNone);
  EXPECT_TRUE(u.smtputf8);
  EXPECT_EQ(u.body, BodyType::kBinaryMime);
  EXPECT_FALSE(parseCommand("MAIL FROM:<a@b.c>").smtputf8);
  EXPECT_EQ(parseCommand("RCPT TO:<a@b.c> SMTPUTF8").error, SyntaxError::kUnknownParameter);
  EXPECT_EQ(parseCommand("MAIL FROM:<a@b.c> RET=HDRS").error, SyntaxError::kUnknownParameter);
  EXPECT_EQ(parseCommand("RCPT TO:<a@b.c> SIZE=1").error, SyntaxError::kUnknownParameter);
  EXPECT_EQ(parseCommand("RCPT TO:<a@b.c> NOTIFY=NEVER").error, SyntaxError::kUnknownParameter);
}

// RFC 3030 §2: BDAT SP chunk-size [SP end-marker].
TEST(LmtpCommand, Bdat) {
  Command c = parseCommand("BDAT 1000");
  EXPECT_EQ(c.verb, Verb::kBdat);
  EXPECT_EQ(c.error, SyntaxError::kNone);
  EXPECT_EQ(c.chunk_size, 1000u);
  EXPECT_FALSE(c.last);
  Command l = parseCommand("bdat 0 last");
  EXPECT_EQ(l.error, SyntaxError::kNone);
  EXPECT_EQ(l.chunk_size, 0u);
  EXPECT_TRUE(l.last);
  EXPECT_EQ(parseCommand("BDAT 99999999999999999999999").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("BDAT 99999999999999999999").chunk_size, UINT64_MAX);
  for (const char* bad : {"BDAT", "BDAT x", "BDAT -1", "BDAT 10 FIRST", "BDAT 10 LAST x",
                          "BDAT  10", "BDAT 1e3"}) {
    EXPECT_EQ(parseCommand(bad).error, SyntaxError::kBadArguments) << bad;
  }
}

// RFC 6531 §3.3: UTF-8 in paths, flagged for the session's SMTPUTF8 check; only well-formed
// UTF-8, and only in MAIL and RCPT.
TEST(LmtpCommand, InternationalisedAddresses) {
  Command c = parseCommand("RCPT TO:<\xc3\xa5sa@b\xc3\xbcro.example>");
  EXPECT_EQ(c.error, SyntaxError::kNone);
  EXPECT_TRUE(c.utf8);
  EXPECT_EQ(c.mailbox->local, "\xc3\xa5sa");
  EXPECT_EQ(c.mailbox->domain, "b\xc3\xbcro.example");
  EXPECT_TRUE(parseCommand("MAIL FROM:<\"\xc3\xa5 s\"@x.y> SMTPUTF8").utf8);
  EXPECT_FALSE(parseCommand("RCPT TO:<ascii@x.y>").utf8);
  EXPECT_EQ(parseCommand("RCPT TO:<\xc3@x.y>").error, SyntaxError::kBadArguments);  // truncated
  EXPECT_EQ(parseCommand("RCPT TO:<\xc0\xaf@x.y>").error, SyntaxError::kBadArguments);  // overlong
  EXPECT_EQ(parseCommand("LHLO h\xc3\xa5st").error, SyntaxError::kBadArguments);
}

TEST(LmtpCommand, RcptTo) {
  Command c = parseCommand("RCPT TO:<alice+lists@Example.COM>");
  EXPECT_EQ(c.error, SyntaxError::kNone);
  EXPECT_EQ(c.mailbox->local, "alice+lists");
  EXPECT_EQ(c.mailbox->domain, "Example.COM");
  Command pm = parseCommand("RCPT TO:<Postmaster>");
  EXPECT_EQ(pm.error, SyntaxError::kNone);
  EXPECT_EQ(pm.mailbox->local, "postmaster");
  EXPECT_EQ(pm.mailbox->domain, "");
  EXPECT_FALSE(pm.bare_local);
  EXPECT_FALSE(c.bare_local);
  EXPECT_EQ(parseCommand("RCPT TO:<>").error, SyntaxError::kBadAddress);
  EXPECT_EQ(parseCommand("RCPT FROM:<a@b.c>").error, SyntaxError::kBadArguments);
}

// Not RFC 5321, but what Cyrus and Dovecot accept: the session decides (lmtp_strict_rcpt).
TEST(LmtpCommand, RcptToABareLocalPart) {
  Command c = parseCommand("RCPT TO:<bench+x>");
  EXPECT_EQ(c.error, SyntaxError::kNone);
  EXPECT_TRUE(c.bare_local);
  EXPECT_EQ(c.path, "bench+x");
  EXPECT_EQ(c.mailbox->local, "bench+x");
  EXPECT_EQ(c.mailbox->domain, "");
  Command q = parseCommand("RCPT TO:<\"john doe\">");
  EXPECT_EQ(q.error, SyntaxError::kNone);
  EXPECT_EQ(q.mailbox->local, "john doe");
  EXPECT_TRUE(parseCommand("RCPT TO:<postmaster.x>").bare_local);
  EXPECT_TRUE(parseCommand("RCPT TO:<\xc3\xa5sa>").utf8);
  // Still a Local-part: syntax and the 64-octet limit hold, and a quoted "@" is refused
  // (it would read as user@domain further on).
  for (const char* bad : {"RCPT TO:<a..b>", "RCPT TO:<.a>", "RCPT TO:<a b>", "RCPT TO:<a(b)>",
                          "RCPT TO:<\"a@b\">", "RCPT TO:<\"\">", "RCPT TO:<@x:alice>"}) {
    EXPECT_EQ(parseCommand(bad).error, SyntaxError::kBadAddress) << bad;
  }
  EXPECT_TRUE(parseCommand("RCPT TO:<" + std::string(64, 'a') + ">").bare_local);
  EXPECT_EQ(parseCommand("RCPT TO:<" + std::string(65, 'a') + ">").error,
            SyntaxError::kBadAddress);
  // MAIL FROM keeps RFC 5321's rule: a sender is always written with its domain.
  EXPECT_EQ(parseCommand("MAIL FROM:<alice>").error, SyntaxError::kBadAddress);
  EXPECT_FALSE(parseMailbox("alice"));
}

TEST(LmtpCommand, SourceRoutesAreDropped) {
  Command c = parseCommand("RCPT TO:<@relay.example,@b.example:bob@example.com>");
  EXPECT_EQ(c.error, SyntaxError::kNone);
  EXPECT_EQ(c.path, "bob@example.com");
  EXPECT_EQ(c.mailbox->local, "bob");
  EXPECT_EQ(parseCommand("RCPT TO:<@:bob@example.com>").error, SyntaxError::kBadAddress);
  EXPECT_EQ(parseCommand("MAIL FROM:<@relay.example:>").error, SyntaxError::kBadAddress);
  EXPECT_EQ(parseCommand("RCPT TO:<@a.b bob@example.com>").error, SyntaxError::kBadAddress);
}

TEST(LmtpCommand, MailboxSyntax) {
  EXPECT_TRUE(parseMailbox("a.b-c+d@x-y.example"));
  EXPECT_TRUE(parseMailbox("user@[192.0.2.1]"));
  EXPECT_TRUE(parseMailbox("user@[IPv6:2001:db8::1]"));
  auto q = parseMailbox("\"john \\\"q\\\" doe\"@example.com");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->local, "john \"q\" doe");
  auto at = parseMailbox("\"a@b\"@example.com");
  ASSERT_TRUE(at);
  EXPECT_EQ(at->local, "a@b");
  for (const char* bad : {"", "@example.com", "user@", "user", "a..b@x.y", ".a@x.y", "a.@x.y",
                          "a b@x.y", "a@-x.y", "a@x-.y", "a@x..y", "a@x_y.z", "\"a@x.y",
                          "\"a\\\"@x.y", "a@[1.2.3.4", "a@[]", "a(b)@x.y", "a@x.y."}) {
    EXPECT_FALSE(parseMailbox(bad)) << bad;
  }
  EXPECT_TRUE(parseMailbox(std::string(64, 'a') + "@x.y"));
  EXPECT_FALSE(parseMailbox(std::string(65, 'a') + "@x.y"));
  EXPECT_FALSE(parseMailbox("a@" + std::string(256, 'b')));
}

TEST(LmtpCommand, PathLengthLimit) {
  // RFC 5321 §4.5.3.1.3: 256 octets, brackets included.
  std::string domain;
  while (domain.size() < 240) domain += "abcdefghi.";
  domain += "example";
  std::string path = "<" + std::string(64, 'a') + "@" + domain + ">";
  ASSERT_GT(path.size(), 256u);
  EXPECT_EQ(parseCommand("RCPT TO:" + path).error, SyntaxError::kBadAddress);
}

TEST(LmtpCommand, VerbNames) {
  EXPECT_EQ(verbName(Verb::kStartTls), "STARTTLS");
  EXPECT_EQ(verbName(Verb::kUnknown), "UNKNOWN");
}

}  // namespace
}  // namespace darius::lmtpd
