// The real POP3 service behind a real ServerHost on loopback, with a real UserStore and mail
// Store in a temp directory, driven by a small blocking client on the test thread: the
// AUTHORIZATION state (CAPA, USER/PASS, AUTH, STLS, limits). The TRANSACTION state is in
// session_maildrop_test.cc.
#include "auth/scram.h"
#include "lib/base/base64.h"
#include "pop3d/session_test_util.h"

namespace darius::pop3d {
namespace {

using namespace std::chrono_literals;
using base::base64Encode;
using test::Client;
using test::contains;
using test::Pop3Test;

constexpr auto kLoggedIn = "+OK Maildrop locked and ready, 0 messages (0 octets)";

TEST_F(Pop3Test, CapaWithoutTlsHidesPlaintextMechanisms) {
  start();
  auto c = connect();
  EXPECT_EQ(c->command("CAPA"), "+OK Capability list follows");
  auto caps = c->body();
  EXPECT_EQ(caps, (std::vector<std::string>{"TOP", "UIDL", "SASL SCRAM-SHA-256", "RESP-CODES",
                                            "AUTH-RESP-CODE", "PIPELINING", "STLS", "EXPIRE NEVER",
                                            "LOGIN-DELAY 0", "IMPLEMENTATION Darius"}));
}

TEST_F(Pop3Test, CapaWithPlaintextAllowedAndWithoutTls) {
  options_.allow_plaintext_auth = true;
  start();
  auto c = connect(no_tls_port_);
  EXPECT_EQ(c->command("capa"), "+OK Capability list follows");
  auto caps = c->body();
  EXPECT_TRUE(contains(caps, "USER"));
  EXPECT_TRUE(contains(caps, "SASL SCRAM-SHA-256 PLAIN LOGIN"));
  EXPECT_FALSE(contains(caps, "STLS"));  // no TLS on this listener
}

TEST_F(Pop3Test, ImplicitTlsOffersEverythingButStls) {
  start();
  auto c = connect(tls_port_, true);
  EXPECT_EQ(c->command("CAPA"), "+OK Capability list follows");
  auto caps = c->body();
  EXPECT_TRUE(contains(caps, "USER"));
  EXPECT_TRUE(contains(caps, "SASL SCRAM-SHA-256-PLUS SCRAM-SHA-256 PLAIN LOGIN"));
  EXPECT_FALSE(contains(caps, "STLS"));
  EXPECT_EQ(c->command("STLS"), "-ERR Command not permitted when TLS active");
}

TEST_F(Pop3Test, UserPassRefusedInCleartext) {
  start();
  auto c = connect();
  EXPECT_EQ(c->command("USER alice"),
            "-ERR [SYS/PERM] Plaintext authentication requires TLS: use STLS");
  EXPECT_EQ(c->command("PASS secret pass"),
            "-ERR [SYS/PERM] Plaintext authentication requires TLS");
  auto n = connect(no_tls_port_);
  EXPECT_EQ(n->command("USER alice"), "-ERR [SYS/PERM] Plaintext authentication is disabled");
}

TEST_F(Pop3Test, UserPassOpensTheMaildrop) {
  options_.allow_plaintext_auth = true;
  start();
  auto c = connect();
  EXPECT_EQ(c->command("USER alice"), "+OK Send the password");
  EXPECT_EQ(c->command("PASS secret pass"), kLoggedIn);
  EXPECT_EQ(c->command("STAT"), "+OK 0 0");
  EXPECT_EQ(c->command("USER alice"), "-ERR Command not valid in TRANSACTION state");
}

TEST_F(Pop3Test, UserPassOverStls) {
  start();
  auto c = connect();
  EXPECT_EQ(c->command("STLS"), "+OK Begin TLS negotiation");
  c->handshake();
  EXPECT_EQ(c->command("CAPA"), "+OK Capability list follows");
  auto caps = c->body();
  EXPECT_TRUE(contains(caps, "USER"));
  EXPECT_FALSE(contains(caps, "STLS"));
  EXPECT_EQ(c->command("STLS"), "-ERR Command not permitted when TLS active");
  EXPECT_EQ(c->command("USER alice"), "+OK Send the password");
  EXPECT_EQ(c->command("PASS secret pass"), kLoggedIn);
}

TEST_F(Pop3Test, BadPasswordAndUnknownUserLookAlike) {
  options_.allow_plaintext_auth = true;
  options_.auth_failure_delay = 300ms;
  start();
  auto c = connect();
  for (const char* user : {"alice", "nobody"}) {
    EXPECT_EQ(c->command(std::string("USER ") + user), "+OK Send the password");
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(c->command("PASS wrong"), "-ERR [AUTH] Authentication failed");
    EXPECT_GE(std::chrono::steady_clock::now() - t0, 290ms) << user;
  }
  EXPECT_EQ(c->command("NOOP"), "+OK");
}

TEST_F(Pop3Test, ThreeFailedLoginsClose) {
  options_.allow_plaintext_auth = true;
  start();
  auto c = connect();
  for (int i = 0; i < Session::kMaxAuthFailures; ++i) {
    EXPECT_EQ(c->command("USER alice"), "+OK Send the password");
    EXPECT_EQ(c->command("PASS nope"), "-ERR [AUTH] Authentication failed");
  }
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(Pop3Test, PassMustFollowUser) {
  options_.allow_plaintext_auth = true;
  start();
  auto c = connect();
  EXPECT_EQ(c->command("PASS secret pass"), "-ERR PASS must follow a successful USER");
  EXPECT_EQ(c->command("USER alice"), "+OK Send the password");
  EXPECT_EQ(c->command("NOOP"), "+OK");
  EXPECT_EQ(c->command("PASS secret pass"), "-ERR PASS must follow a successful USER");
  EXPECT_EQ(c->command("USER"), "-ERR Exactly one argument expected");
  EXPECT_EQ(c->command("USER alice"), "+OK Send the password");
  c->send(std::string(2000, 'x') + "\r\n");
  EXPECT_EQ(c->line(), "-ERR Line too long");
  EXPECT_EQ(c->command("PASS secret pass"), "-ERR PASS must follow a successful USER");
}

TEST_F(Pop3Test, BrokenUserStoreIsATemporaryFailure) {
  options_.allow_plaintext_auth = true;
  start();
  auto c = connect();
  std::ofstream(dir_ + "/users") << "this is not a users file\n";
  EXPECT_EQ(c->command("USER alice"), "+OK Send the password");
  EXPECT_EQ(c->command("PASS secret pass"),
            "-ERR [SYS/TEMP] Authentication is temporarily unavailable");
  EXPECT_EQ(c->command("NOOP"), "+OK");
}

TEST_F(Pop3Test, AuthPlainWithInitialResponse) {
  start();
  auto c = connect(tls_port_, true);
  EXPECT_EQ(c->command("AUTH PLAIN " + base64Encode(std::string("\0alice\0secret pass", 18))),
            kLoggedIn);
  EXPECT_EQ(c->command("QUIT"),
            "+OK pop.example.org Darius POP3 server signing off (0 messages left)");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(Pop3Test, AuthPlainWithEmptyChallenge) {
  start();
  auto c = connect(tls_port_, true);
  EXPECT_EQ(c->command("AUTH PLAIN"), "+ ");
  EXPECT_EQ(c->command(base64Encode(std::string("\0alice\0wrong", 12))),
            "-ERR [AUTH] Authentication failed");
  EXPECT_EQ(c->command("AUTH PLAIN"), "+ ");
  EXPECT_EQ(c->command(base64Encode(std::string("\0alice\0secret pass", 18))), kLoggedIn);
}

TEST_F(Pop3Test, AuthLogin) {
  start();
  auto c = connect(tls_port_, true);
  EXPECT_EQ(c->command("AUTH LOGIN"), "+ " + base64Encode("Username:"));
  EXPECT_EQ(c->command(base64Encode("alice")), "+ " + base64Encode("Password:"));
  EXPECT_EQ(c->command(base64Encode("secret pass")), kLoggedIn);
}

TEST_F(Pop3Test, AuthScramSendsServerSignatureAsAChallenge) {
  start();
  auto c = connect();
  const std::string bare = "n=alice,r=clientnonce123";
  std::string first = c->command("AUTH SCRAM-SHA-256 " + base64Encode("n,," + bare));
  ASSERT_EQ(first.substr(0, 2), "+ ");
  auto server_first = base::base64Decode(first.substr(2));
  ASSERT_TRUE(server_first.ok());
  std::map<char, std::string> attr;
  for (size_t pos = 0; pos < server_first->size();) {
    size_t comma = std::min(server_first->find(',', pos), server_first->size());
    attr[(*server_first)[pos]] = server_first->substr(pos + 2, comma - pos - 2);
    pos = comma + 1;
  }
  auto salt = base::base64Decode(attr['s']);
  ASSERT_TRUE(salt.ok());
  const auto digest = auth::ScramDigest::kSha256;
  auto salted = auth::scramSaltedPassword(digest, "secret pass", *salt,
                                          static_cast<uint32_t>(std::stoul(attr['i'])));
  ASSERT_TRUE(salted.ok());
  std::string without_proof = "c=biws,r=" + attr['r'];
  std::string auth_message = bare + "," + *server_first + "," + without_proof;
  auto proof = auth::scramClientProof(digest, *salted, auth_message);
  auto server_key = auth::scramHmac(digest, *salted, "Server Key");
  auto signature = auth::scramHmac(digest, *server_key, auth_message);
  // RFC 5034 §4: no data with +OK, so the server signature comes as one more challenge.
  EXPECT_EQ(c->command(base64Encode(without_proof + ",p=" + base64Encode(*proof))),
            "+ " + base64Encode("v=" + base64Encode(*signature)));
  EXPECT_EQ(c->command(""), kLoggedIn);
}

TEST_F(Pop3Test, AuthCancelAndBadBase64) {
  start();
  auto c = connect(tls_port_, true);
  EXPECT_EQ(c->command("AUTH PLAIN"), "+ ");
  EXPECT_EQ(c->command("*"), "-ERR Authentication cancelled");
  EXPECT_EQ(c->command("AUTH PLAIN"), "+ ");
  EXPECT_EQ(c->command("not base64!"), "-ERR Invalid base64 data");
  EXPECT_EQ(c->command("AUTH PLAIN AAA=BBBB"), "-ERR Invalid base64 data");
  EXPECT_EQ(c->command("AUTH PLAIN ="), "-ERR [AUTH] Authentication failed");  // empty response
  EXPECT_EQ(c->command("NOOP"), "+OK");
}

TEST_F(Pop3Test, OverlongSaslResponse) {
  start();
  auto c = connect(tls_port_, true);
  EXPECT_EQ(c->command("AUTH PLAIN"), "+ ");
  // Longer than any response auth/ accepts, but far over the 1024-octet command limit too:
  // inside an exchange the session allows long lines (RFC 5034 §4), up to a bound.
  EXPECT_EQ(c->command(std::string(30000, 'A')), "-ERR Authentication response too long");
  EXPECT_EQ(c->command("AUTH PLAIN"), "+ ");
  std::string long_password(1000, 'p');
  EXPECT_EQ(c->command(base64Encode(std::string("\0alice\0", 7) + long_password)),
            "-ERR [AUTH] Authentication failed");
  EXPECT_EQ(c->command("NOOP"), "+OK");
}

TEST_F(Pop3Test, ShutdownInterruptsAnIdleSession) {
  start();
  auto c = connect();
  host_->stop();
  EXPECT_EQ(c->line(), "-ERR [SYS/TEMP] Server shutting down");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(Pop3Test, AuthMechanismChecks) {
  start();
  auto c = connect();
  EXPECT_EQ(c->command("AUTH"), "+OK Available mechanisms follow");
  EXPECT_EQ(c->body(), std::vector<std::string>{"SCRAM-SHA-256"});
  EXPECT_EQ(c->command("AUTH PLAIN"), "-ERR [SYS/PERM] Plaintext authentication requires TLS");
  EXPECT_EQ(c->command("AUTH CRAM-MD5"), "-ERR Unsupported authentication mechanism");
  EXPECT_EQ(c->command("AUTH SCRAM-SHA-256-PLUS"), "-ERR Unsupported authentication mechanism");
}

TEST_F(Pop3Test, StlsRefusesPipelinedPlaintext) {
  start();
  auto c = connect();
  c->send("STLS\r\nUSER alice\r\n");
  EXPECT_EQ(c->line(), "+OK Begin TLS negotiation");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(Pop3Test, StlsWithoutTlsConfigured) {
  start();
  auto c = connect(no_tls_port_);
  EXPECT_EQ(c->command("STLS"), "-ERR STLS not available: TLS is not configured");
  EXPECT_EQ(c->command("STLS now"), "-ERR No arguments allowed");
}

TEST_F(Pop3Test, WrongStateAndUnknownCommands) {
  start();
  auto c = connect();
  for (const char* cmd :
       {"STAT", "LIST", "LIST 1", "RETR 1", "DELE 1", "RSET", "TOP 1 5", "UIDL"}) {
    EXPECT_EQ(c->command(cmd), "-ERR Command not valid in AUTHORIZATION state") << cmd;
  }
  c = connect();
  EXPECT_EQ(c->command("HELO"), "-ERR Unknown command");
  EXPECT_EQ(c->command(""), "-ERR Empty command");
  EXPECT_EQ(c->command("CAPA please"), "-ERR No arguments allowed");
}

TEST_F(Pop3Test, TooManyBadCommandsClose) {
  start();
  auto c = connect();
  for (int i = 1; i < Session::kMaxBadCommands; ++i) {
    EXPECT_EQ(c->command("BOGUS"), "-ERR Unknown command");
  }
  EXPECT_EQ(c->command("BOGUS"), "-ERR Too many bad commands, closing connection");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(Pop3Test, PipelinedCommandsAnswerInOrder) {
  options_.allow_plaintext_auth = true;
  start();
  auto c = connect();
  c->send("NOOP\r\nCAPA\r\nBOGUS\r\nUSER alice\r\nPASS secret pass\r\n");
  EXPECT_EQ(c->line(), "+OK");
  EXPECT_EQ(c->line(), "+OK Capability list follows");
  EXPECT_TRUE(contains(c->body(), "PIPELINING"));
  EXPECT_EQ(c->line(), "-ERR Unknown command");
  EXPECT_EQ(c->line(), "+OK Send the password");
  EXPECT_EQ(c->line(), kLoggedIn);
}

TEST_F(Pop3Test, OverlongLineIsRefusedAndTheSessionGoesOn) {
  start();
  auto c = connect();
  c->send("NOOP " + std::string(5000, 'x') + "\r\nNOOP\r\n");
  EXPECT_EQ(c->line(), "-ERR Line too long");
  EXPECT_EQ(c->line(), "+OK");
}

TEST_F(Pop3Test, QuitSignsOff) {
  start();
  auto c = connect();
  EXPECT_EQ(c->command("QUIT"), "+OK pop.example.org Darius POP3 server signing off");
  EXPECT_EQ(c->line(), "<eof>");
}

TEST_F(Pop3Test, LoginTimeoutIsADeadlineNotJustInactivity) {
  options_.login_timeout = 1000ms;
  start();
  auto t0 = std::chrono::steady_clock::now();
  auto c = connect();
  // Activity until 700 ms: an inactivity timeout alone would fire at about 1700 ms.
  while (std::chrono::steady_clock::now() - t0 < 700ms) {
    EXPECT_EQ(c->command("NOOP"), "+OK");
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(c->line(), "-ERR Login timeout, closing connection");
  auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(c->line(), "<eof>");
  EXPECT_GE(elapsed, 900ms);
  EXPECT_LT(elapsed, 1600ms);
}

TEST_F(Pop3Test, CommandsAreCounted) {
  start();
  auto c = connect();
  EXPECT_EQ(c->command("CAPA"), "+OK Capability list follows");
  c->body();
  EXPECT_EQ(c->command("FOO"), "-ERR Unknown command");
  EXPECT_EQ(c->command("QUIT").substr(0, 3), "+OK");
  std::string m = host_->metrics().render();
  EXPECT_NE(m.find("darius_commands_total{service=\"pop3\",command=\"CAPA\"} 1"), std::string::npos)
      << m;
  EXPECT_NE(m.find("darius_commands_total{service=\"pop3\",command=\"UNKNOWN\"} 1"),
            std::string::npos);
}

}  // namespace
}  // namespace darius::pop3d
