// AUTHENTICATE over real sockets: PLAIN with and without SASL-IR, LOGIN, SCRAM-SHA-256 and
// SCRAM-SHA-256-PLUS (channel binding from the TLS connection), cancellation, bad base64,
// unknown mechanisms and the plaintext policy.
#include <gtest/gtest.h>

#include "auth/scram.h"
#include "imapd/imap_test_server.h"
#include "lib/base/base64.h"
#include "lib/net/tls.h"

namespace darius::imapd {
namespace session_auth_test {

using namespace std::chrono_literals;
using base::base64Decode;
using base::base64Encode;
using testing::ImapServerTest;
using testing::kBaseCaps;
using Lines = std::vector<std::string>;

const std::string kLoggedIn = "OK [CAPABILITY " + std::string(kBaseCaps) + "] Logged in";
const std::string kPlainFred = base64Encode(std::string("\0fred\0secret", 12));

class AuthenticateTest : public ImapServerTest {
 protected:
  std::unique_ptr<testing::ImapClient> tlsGreeted() {
    start();
    auto c = tls();
    c->line();
    return c;
  }
};

TEST_F(AuthenticateTest, PlainWithInitialResponse) {
  auto c = tlsGreeted();
  EXPECT_EQ(c->command("a AUTHENTICATE PLAIN " + kPlainFred), (Lines{"a " + kLoggedIn}));
  EXPECT_EQ(c->command("b CAPABILITY"),
            (Lines{"* CAPABILITY " + std::string(kBaseCaps), "b OK CAPABILITY completed"}));
}

TEST_F(AuthenticateTest, PlainWithoutInitialResponse) {
  auto c = tlsGreeted();
  c->send("a AUTHENTICATE plain\r\n");
  EXPECT_EQ(c->line(), "+ ");
  c->send(kPlainFred + "\r\n");
  EXPECT_EQ(c->line(), "a " + kLoggedIn);
}

TEST_F(AuthenticateTest, EmptyInitialResponseIsPassedOn) {
  auto c = tlsGreeted();
  // "=" is a zero-length response, which PLAIN finds malformed.
  EXPECT_EQ(c->command("a AUTHENTICATE PLAIN ="),
            (Lines{"a BAD Malformed authentication exchange"}));
}

TEST_F(AuthenticateTest, WrongPasswordFailsAfterTheDelay) {
  auto c = tlsGreeted();
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(c->command("a AUTHENTICATE PLAIN " + base64Encode(std::string("\0fred\0nope", 10))),
            (Lines{"a NO [AUTHENTICATIONFAILED] Authentication failed"}));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 50ms);
  EXPECT_EQ(c->command("b AUTHENTICATE PLAIN " + kPlainFred), (Lines{"b " + kLoggedIn}));
}

TEST_F(AuthenticateTest, ClientCancels) {
  auto c = tlsGreeted();
  c->send("a AUTHENTICATE PLAIN\r\n");
  EXPECT_EQ(c->line(), "+ ");
  c->send("*\r\n");
  EXPECT_EQ(c->line(), "a BAD Authentication cancelled");
  EXPECT_EQ(c->command("b NOOP"), (Lines{"b OK NOOP completed"}));
}

TEST_F(AuthenticateTest, MalformedBase64IsBad) {
  auto c = tlsGreeted();
  c->send("a AUTHENTICATE PLAIN\r\n");
  EXPECT_EQ(c->line(), "+ ");
  c->send("AAA=BBB\r\n");
  EXPECT_EQ(c->line(), "a BAD Invalid base64 in response");
  EXPECT_EQ(c->command("b AUTHENTICATE PLAIN =AAA"),
            (Lines{"b BAD Invalid base64 in initial response"}));
  EXPECT_EQ(c->command("c AUTHENTICATE PLAIN AGZy AAAA"),
            (Lines{"c BAD Unexpected extra arguments"}));
}

TEST_F(AuthenticateTest, UnknownMechanismIsNo) {
  auto c = tlsGreeted();
  EXPECT_EQ(c->command("a AUTHENTICATE X-UNKNOWN"), (Lines{"a NO Unsupported mechanism"}));
  EXPECT_EQ(c->command("b AUTHENTICATE GSSAPI"), (Lines{"b NO Unsupported mechanism"}));
}

TEST_F(AuthenticateTest, PlainRefusedWithoutTls) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("a AUTHENTICATE PLAIN " + kPlainFred),
            (Lines{"a NO [PRIVACYREQUIRED] Connection offers no privacy"}));
  // -PLUS needs a channel binding, which a plaintext connection does not have.
  EXPECT_EQ(c->command("b AUTHENTICATE SCRAM-SHA-256-PLUS"), (Lines{"b NO Unsupported mechanism"}));
}

TEST_F(AuthenticateTest, LoginMechanism) {
  auto c = tlsGreeted();
  c->send("a AUTHENTICATE LOGIN\r\n");
  std::string prompt = c->line();
  ASSERT_EQ(prompt.substr(0, 2), "+ ");
  c->send(base64Encode("fred") + "\r\n");
  ASSERT_EQ(c->line().substr(0, 2), "+ ");
  c->send(base64Encode("secret") + "\r\n");
  EXPECT_EQ(c->line(), "a " + kLoggedIn);
}

TEST_F(AuthenticateTest, OverlongResponseLine) {
  auto c = tlsGreeted();
  c->send("a AUTHENTICATE PLAIN\r\n");
  EXPECT_EQ(c->line(), "+ ");
  c->send(std::string(3000, 'A') + "\r\n");
  EXPECT_EQ(c->line(), "a BAD [TOOBIG] Authentication response too long");
  EXPECT_EQ(c->command("b NOOP"), (Lines{"b OK NOOP completed"}));
}

// Runs a SCRAM-SHA-256 exchange as a client; `gs2` is the GS2 header and `cb` the channel
// binding data (empty without -PLUS). Returns the tagged reply.
std::string scramExchange(testing::ImapClient& c, const std::string& mech, const std::string& gs2,
                          const std::string& cb, const std::string& password) {
  const std::string client_first_bare = "n=fred,r=clientnonce0123456789";
  c.send("a AUTHENTICATE " + mech + " " + base64Encode(gs2 + client_first_bare) + "\r\n");
  std::string l = c.line();
  if (l.rfind("+ ", 0) != 0) return l;
  auto server_first = base64Decode(l.substr(2));
  if (!server_first.ok()) return "bad server-first";
  // r=<nonce>,s=<salt>,i=<iterations>
  std::string nonce, salt_b64;
  uint32_t iterations = 0;
  size_t pos = 0;
  std::string sf = *server_first;
  while (pos < sf.size()) {
    size_t comma = sf.find(',', pos);
    std::string attr = sf.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (attr.rfind("r=", 0) == 0) nonce = attr.substr(2);
    if (attr.rfind("s=", 0) == 0) salt_b64 = attr.substr(2);
    if (attr.rfind("i=", 0) == 0) iterations = static_cast<uint32_t>(std::stoul(attr.substr(2)));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  auto salt = base64Decode(salt_b64);
  if (!salt.ok()) return "bad salt";
  const std::string without_proof = "c=" + base64Encode(gs2 + cb) + ",r=" + nonce;
  const std::string auth_message = client_first_bare + "," + sf + "," + without_proof;
  auto d = auth::ScramDigest::kSha256;
  auto salted = auth::scramSaltedPassword(d, password, *salt, iterations);
  auto proof = auth::scramClientProof(d, *salted, auth_message);
  c.send(base64Encode(without_proof + ",p=" + base64Encode(*proof)) + "\r\n");
  l = c.line();
  if (l.rfind("+ ", 0) != 0) return l;
  // Success with additional data: v=<server signature>; answered with an empty line.
  auto server_final = base64Decode(l.substr(2));
  if (!server_final.ok() || server_final->rfind("v=", 0) != 0) return "bad server-final";
  auto server_key = auth::scramHmac(d, *salted, "Server Key");
  auto signature = auth::scramHmac(d, *server_key, auth_message);
  if (server_final->substr(2) != base64Encode(*signature)) return "wrong server signature";
  c.send("\r\n");
  return c.line();
}

TEST_F(AuthenticateTest, ScramSha256) {
  auto c = tlsGreeted();
  EXPECT_EQ(scramExchange(*c, "SCRAM-SHA-256", "n,,", "", "secret"), "a " + kLoggedIn);
}

TEST_F(AuthenticateTest, ScramSha256WrongPassword) {
  auto c = tlsGreeted();
  EXPECT_EQ(scramExchange(*c, "SCRAM-SHA-256", "n,,", "", "wrong"),
            "a NO [AUTHENTICATIONFAILED] Authentication failed");
}

TEST_F(AuthenticateTest, ScramSha256PlusUsesTheConnectionsChannelBinding) {
  auto c = tlsGreeted();
  net::TlsBinding b = net::channelBinding(c->ssl());
  ASSERT_EQ(b.type, "tls-exporter");
  EXPECT_EQ(scramExchange(*c, "SCRAM-SHA-256-PLUS", "p=tls-exporter,,", b.data, "secret"),
            "a " + kLoggedIn);
}

TEST_F(AuthenticateTest, ScramSha256PlusWithWrongBindingFails) {
  auto c = tlsGreeted();
  EXPECT_EQ(
      scramExchange(*c, "SCRAM-SHA-256-PLUS", "p=tls-exporter,,", std::string(32, 'x'), "secret"),
      "a NO [AUTHENTICATIONFAILED] Authentication failed");
}

}  // namespace session_auth_test
}  // namespace darius::imapd
