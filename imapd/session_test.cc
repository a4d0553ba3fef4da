// The command loop over real loopback sockets: greeting, capabilities, STARTTLS, LOGIN,
// states, pipelining, literals, limits, timeouts, shutdown.
#include <gtest/gtest.h>

#include "imapd/imap_test_server.h"

namespace darius::imapd {
namespace session_test {

using namespace std::chrono_literals;
using testing::ImapServerTest;
using testing::kBaseCaps;
using Lines = std::vector<std::string>;

const std::string kCaps(kBaseCaps);
const std::string kPlainCaps = kCaps + " STARTTLS LOGINDISABLED AUTH=SCRAM-SHA-256";
const std::string kTlsCaps =
    kCaps + " AUTH=SCRAM-SHA-256-PLUS AUTH=SCRAM-SHA-256 AUTH=PLAIN AUTH=LOGIN";
const std::string kLoggedIn = "OK [CAPABILITY " + kCaps + "] Logged in";

TEST_F(ImapServerTest, GreetingAnnouncesCapabilities) {
  start();
  auto c = plain();
  EXPECT_EQ(c->line(), "* OK [CAPABILITY " + kPlainCaps + "] test.example Darius IMAP ready");
  EXPECT_EQ(c->command("a CAPABILITY"),
            (Lines{"* CAPABILITY " + kPlainCaps, "a OK CAPABILITY completed"}));
  // RFC 7888 §5: never LITERAL+ and LITERAL- together.
  EXPECT_NE(kPlainCaps.find(" LITERAL+ "), std::string::npos);
  EXPECT_EQ(kPlainCaps.find("LITERAL-"), std::string::npos);
}

TEST_F(ImapServerTest, StartTlsChangesCapabilities) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("a STARTTLS"), (Lines{"a OK Begin TLS negotiation now"}));
  ASSERT_TRUE(c->startTls());
  EXPECT_EQ(c->command("b CAPABILITY"),
            (Lines{"* CAPABILITY " + kTlsCaps, "b OK CAPABILITY completed"}));
  EXPECT_EQ(c->command("c STARTTLS"), (Lines{"c BAD TLS is already active"}));
  EXPECT_EQ(c->command("d LOGIN fred secret"), (Lines{"d " + kLoggedIn}));
  EXPECT_EQ(c->command("e CAPABILITY"),
            (Lines{"* CAPABILITY " + kCaps, "e OK CAPABILITY completed"}));
}

TEST_F(ImapServerTest, StartTlsWithPipelinedPlaintextDropsTheConnection) {
  start();
  auto c = greeted();
  c->send("a STARTTLS\r\nb LOGIN fred secret\r\n");
  EXPECT_EQ(c->line(), "a OK Begin TLS negotiation now");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(ImapServerTest, StartTlsRefusedWithoutTlsContext) {
  start("", /*tls_available=*/false);
  auto c = plain();
  EXPECT_EQ(c->line(), "* OK [CAPABILITY " + kCaps +
                           " LOGINDISABLED AUTH=SCRAM-SHA-256] test.example Darius IMAP ready");
  EXPECT_EQ(c->command("a STARTTLS"), (Lines{"a BAD STARTTLS is not available"}));
}

TEST_F(ImapServerTest, ImplicitTlsOffersPlaintextMechanisms) {
  start();
  auto c = tls();
  EXPECT_EQ(c->line(), "* OK [CAPABILITY " + kTlsCaps + "] test.example Darius IMAP ready");
  EXPECT_EQ(c->command("a STARTTLS"), (Lines{"a BAD TLS is already active"}));
  EXPECT_EQ(c->command("b LOGIN fred secret"), (Lines{"b " + kLoggedIn}));
}

TEST_F(ImapServerTest, LoginRefusedWithoutTls) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("a LOGIN fred secret"),
            (Lines{"a NO [PRIVACYREQUIRED] Connection offers no privacy"}));
  EXPECT_EQ(c->command("b NOOP"), (Lines{"b OK NOOP completed"}));
}

TEST_F(ImapServerTest, LoginAllowedWithoutTlsWhenConfigured) {
  start("allow_plaintext_auth: yes\n");
  auto c = plain();
  EXPECT_EQ(c->line(), "* OK [CAPABILITY " + kCaps +
                           " STARTTLS AUTH=SCRAM-SHA-256 AUTH=PLAIN AUTH=LOGIN] test.example "
                           "Darius IMAP ready");
  EXPECT_EQ(c->command("a LOGIN \"fred\" \"secret\""), (Lines{"a " + kLoggedIn}));
}

TEST_F(ImapServerTest, WrongPasswordAndUnknownUserLookTheSame) {
  start();
  auto c = tls();
  c->line();
  for (const char* cmd : {"a LOGIN fred wrong", "b LOGIN nobody secret"}) {
    auto t0 = std::chrono::steady_clock::now();
    Lines r = c->command(cmd);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].substr(2), "NO [AUTHENTICATIONFAILED] Authentication failed");
    EXPECT_GE(std::chrono::steady_clock::now() - t0, 50ms) << "failure delay";
  }
  EXPECT_EQ(c->command("c LOGIN fred secret"), (Lines{"c " + kLoggedIn}));
}

TEST_F(ImapServerTest, CommandsInTheWrongState) {
  start("allow_plaintext_auth: yes\n");
  auto c = greeted();
  EXPECT_EQ(c->command("a ENABLE IMAP4rev2"), (Lines{"a BAD Command not allowed in this state"}));
  EXPECT_EQ(c->command("b LOGIN fred secret"), (Lines{"b " + kLoggedIn}));
  EXPECT_EQ(c->command("c LOGIN fred secret"), (Lines{"c BAD Command not allowed in this state"}));
  EXPECT_EQ(c->command("d AUTHENTICATE PLAIN"), (Lines{"d BAD Command not allowed in this state"}));
  EXPECT_EQ(c->command("e STARTTLS"), (Lines{"e BAD Command not allowed in this state"}));
  EXPECT_EQ(c->command("f ENABLE IMAP4rev2 CONDSTORE"),
            (Lines{"* ENABLED IMAP4rev2 CONDSTORE", "f OK ENABLE completed"}));
  EXPECT_EQ(c->command("g ENABLE imap4REV2"), (Lines{"* ENABLED", "g OK ENABLE completed"}));
  EXPECT_EQ(c->command("h ENABLE QRESYNC"), (Lines{"* ENABLED QRESYNC", "h OK ENABLE completed"}));
}

TEST_F(ImapServerTest, UnknownAndMalformedCommands) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("a FROBNICATE"), (Lines{"a BAD Unknown command"}));
  EXPECT_EQ(c->command("a SELECT INBOX"), (Lines{"a BAD Command not allowed in this state"}));
  EXPECT_EQ(c->command("b NOOP extra"), (Lines{"b BAD Unexpected extra arguments"}));
  EXPECT_EQ(c->command("c"), (Lines{"c BAD Missing command name"}));
  EXPECT_EQ(c->command("d LOGIN \"fred secret"), (Lines{"d BAD Unterminated quoted string"}));
  c->send("e+f NOOP\r\n");
  EXPECT_EQ(c->line(), "* BAD Invalid character in tag");
  c->send("\r\n");
  EXPECT_EQ(c->line(), "* BAD Empty command line");
  c->send(std::string("g NO\0OP\r\n", 9));
  EXPECT_EQ(c->line(), "g BAD NUL byte in atom");
  c->send("h ID (\"name\" \"\xff\")\r\n");
  EXPECT_EQ(c->line(), "h BAD Invalid UTF-8 in quoted string");
  c->send("i N\xc3\xb6OP\r\n");
  EXPECT_EQ(c->line(), "i BAD 8-bit character in atom");
  EXPECT_EQ(c->command("j noop"), (Lines{"j OK NOOP completed"}));
}

TEST_F(ImapServerTest, TooManyInvalidCommandsEndTheSession) {
  start();
  auto c = greeted();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(c->command("x BOGUS"), (Lines{"x BAD Unknown command"})) << i;
  }
  EXPECT_EQ(c->command("y NOOP"), (Lines{"y OK NOOP completed"})) << "a good command resets";
  for (int i = 0; i < 10; ++i) c->command("x BOGUS");
  c->send("z BOGUS\r\n");
  EXPECT_EQ(c->line(), "z BAD Unknown command");
  EXPECT_EQ(c->line(), "* BYE Too many invalid commands");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(ImapServerTest, PipelinedCommandsAnswerInOrder) {
  start("allow_plaintext_auth: yes\n");
  auto c = greeted();
  c->send("a NOOP\r\nb LOGIN fred secret\r\nc ENABLE IMAP4rev2\r\nd ID NIL\r\ne LOGOUT\r\n");
  EXPECT_EQ(c->line(), "a OK NOOP completed");
  EXPECT_EQ(c->line(), "b " + kLoggedIn);
  EXPECT_EQ(c->line(), "* ENABLED IMAP4rev2");
  EXPECT_EQ(c->line(), "c OK ENABLE completed");
  EXPECT_EQ(c->line(), "* ID (\"name\" \"Darius\" \"version\" \"" DARIUS_VERSION "\")");
  EXPECT_EQ(c->line(), "d OK ID completed");
  EXPECT_EQ(c->line(), "* BYE Logging out");
  EXPECT_EQ(c->line(), "e OK LOGOUT completed");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(ImapServerTest, SynchronizingLiterals) {
  start("allow_plaintext_auth: yes\n");
  auto c = greeted();
  c->send("a LOGIN {4}\r\n");
  EXPECT_EQ(c->line(), "+ Ready for literal data");
  c->send("fred {6}\r\n");
  EXPECT_EQ(c->line(), "+ Ready for literal data");
  c->send("secret\r\n");
  EXPECT_EQ(c->line(), "a " + kLoggedIn);
}

TEST_F(ImapServerTest, NonSynchronizingLiterals) {
  start("allow_plaintext_auth: yes\n");
  auto c = greeted();
  // RFC 7888 §3's example, with an empty literal for good measure.
  c->send("a ID ({4+}\r\nname {0+}\r\n)\r\nb LOGIN {4+}\r\nfred {6+}\r\nsecret\r\n");
  EXPECT_EQ(c->line(), "* ID (\"name\" \"Darius\" \"version\" \"" DARIUS_VERSION "\")");
  EXPECT_EQ(c->line(), "a OK ID completed");
  EXPECT_EQ(c->line(), "b " + kLoggedIn);
}

TEST_F(ImapServerTest, TooBigSynchronizingLiteralIsRefusedWithoutContinuation) {
  start();
  auto c = greeted();
  c->send("a LOGIN {5000}\r\n");
  EXPECT_EQ(c->line(), "a BAD [TOOBIG] Literal too big");
  c->send("b LOGIN {99999999999999999999}\r\n");
  EXPECT_EQ(c->line(), "b BAD [TOOBIG] Literal too big");
  EXPECT_EQ(c->command("c NOOP"), (Lines{"c OK NOOP completed"}));
}

TEST_F(ImapServerTest, TooBigNonSynchronizingLiteralEndsTheSession) {
  start();
  auto c = greeted();
  c->send("a LOGIN {5000+}\r\n" + std::string(5000, 'x') + " secret\r\n");
  EXPECT_EQ(c->line(), "a BAD [TOOBIG] Literal too big");
  EXPECT_EQ(c->line(), "* BYE [TOOBIG] Literal too big");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(ImapServerTest, LiteralLimitIsLowerBeforeLogin) {
  start("max_literal_size: 64K\nallow_plaintext_auth: yes\n");
  auto c = greeted();
  c->send("a ID (\"x\" {20000}\r\n");
  EXPECT_EQ(c->line(), "a BAD [TOOBIG] Literal too big");
  std::string logged_in_64k = kLoggedIn;
  logged_in_64k.replace(logged_in_64k.find("APPENDLIMIT=4096"), 16, "APPENDLIMIT=65536");
  EXPECT_EQ(c->command("b LOGIN fred secret"), (Lines{"b " + logged_in_64k}));
  c->send("c ID (\"x\" {20000}\r\n");
  EXPECT_EQ(c->line(), "+ Ready for literal data");
  c->send(std::string(20000, 'v') + ")\r\n");
  EXPECT_EQ(c->line(), "c BAD ID value too long");
}

TEST_F(ImapServerTest, LiteralsForRefusedCommandsAreNotRequested) {
  start();
  auto c = greeted();
  c->send("a APPEND INBOX {10}\r\n");
  EXPECT_EQ(c->line(), "a BAD Command not allowed in this state");
  c->send("a2 XAPPEND INBOX {10}\r\n");
  EXPECT_EQ(c->line(), "a2 BAD Unknown command");
  c->send("b ENABLE {9}\r\n");
  EXPECT_EQ(c->line(), "b BAD Command not allowed in this state");
  c->send("+b LOGIN {4}\r\n");
  EXPECT_EQ(c->line(), "* BAD Missing or invalid tag");
  EXPECT_EQ(c->command("c NOOP"), (Lines{"c OK NOOP completed"}));
}

TEST_F(ImapServerTest, OverlongLineIsSkipped) {
  start();
  auto c = greeted();
  c->send("a NOOP " + std::string(3000, 'x') + "\r\nb NOOP\r\n");
  EXPECT_EQ(c->line(), "a BAD [TOOBIG] Line too long");
  EXPECT_EQ(c->line(), "b OK NOOP completed");
  // Without a recognisable tag in front, the BAD cannot be tagged.
  c->send(std::string(3000, 'x') + "\r\nc NOOP\r\n");
  EXPECT_EQ(c->line(), "* BAD [TOOBIG] Line too long");
  EXPECT_EQ(c->line(), "c OK NOOP completed");
}

TEST_F(ImapServerTest, LogoutSaysByeThenOk) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("a LOGOUT"), (Lines{"* BYE Logging out", "a OK LOGOUT completed"}));
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(ImapServerTest, LoginTimeoutSaysAutologout) {
  start("login_timeout: 200ms\n");
  auto c = greeted();
  EXPECT_EQ(c->line(), "* BYE Autologout; idle for too long");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(ImapServerTest, IdleTimeoutAppliesAfterLogin) {
  start("login_timeout: 1s\nidle_timeout: 3s\nallow_plaintext_auth: yes\n");
  auto c = greeted();
  EXPECT_EQ(c->command("a LOGIN fred secret"), (Lines{"a " + kLoggedIn}));
  std::this_thread::sleep_for(1500ms);  // past login_timeout, within idle_timeout
  EXPECT_EQ(c->command("b NOOP"), (Lines{"b OK NOOP completed"}));
  EXPECT_EQ(c->line(), "* BYE Autologout; idle for too long");
}

TEST_F(ImapServerTest, ShutdownSaysBye) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("a NOOP"), (Lines{"a OK NOOP completed"}));
  host_->stop();
  EXPECT_EQ(c->line(), "* BYE [UNAVAILABLE] Server shutting down");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(ImapServerTest, CommandsAreCounted) {
  start();
  auto c = greeted();
  c->command("a NOOP");
  c->command("b noop");
  c->command("c BOGUS");
  c->command("d LOGOUT");
  std::string m = host_->metrics().render();
  EXPECT_NE(m.find("darius_commands_total{service=\"imap\",command=\"NOOP\"} 2"), std::string::npos)
      << m;
  EXPECT_NE(m.find("darius_commands_total{service=\"imap\",command=\"unknown\"} 1"),
            std::string::npos);
  EXPECT_NE(m.find("darius_commands_total{service=\"imap\",command=\"LOGOUT\"} 1"),
            std::string::npos);
}

}  // namespace session_test
}  // namespace darius::imapd
