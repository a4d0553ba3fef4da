// SCRAM-SHA-256(-PLUS) through the SaslServer interface: RFC vectors, channel binding, bad input.
#include <gtest/gtest.h>
#include <stdio.h>

#include <fstream>
#include <functional>
#include <random>

#include "auth/sasl.h"
#include "auth/sasl_mechanisms.h"
#include "auth/sasl_test_util.h"
#include "auth/scram.h"
#include "auth/user_store.h"
#include "lib/base/base64.h"

namespace darius::auth {
namespace {

using namespace test_util;  // NOLINT

// ---------------------------------------------------------------------------------------------
// RFC vectors end to end through the SaslServer.

std::function<base::Result<ScramSecrets>(const std::string&)> pencilSecrets(ScramDigest d,
                                                                            std::string salt_b64) {
  return [d, salt_b64](const std::string& user) -> base::Result<ScramSecrets> {
    if (user != "user") return base::Status::notFound("no such user");
    return deriveScramSecrets(d, "pencil", *base::base64Decode(salt_b64), 4096);
  };
}

TEST(SaslScram, Rfc5802Sha1Vector) {
  SaslContext ctx;  // no store, no TLS: the secrets come from the options
  internal::ScramOptions o;
  o.digest = ScramDigest::kSha1;
  o.server_nonce = "3rfcNHYJY1ZVvWVs7j";
  o.secrets = pencilSecrets(ScramDigest::kSha1, "QSXCR+Q6sek8bf92");
  auto server = internal::makeScramServer(ctx, o);
  auto s1 = server->start("n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL");
  ASSERT_EQ(s1.state, State::kContinue) << s1.error.toString();
  EXPECT_EQ(s1.challenge, "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096");
  auto s2 = server->next(
      "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=");
  ASSERT_EQ(s2.state, State::kSuccess) << s2.error.toString();
  EXPECT_EQ(s2.challenge, "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=");
  EXPECT_EQ(server->authenticatedUser(), "user");
}

TEST(SaslScram, Rfc7677Sha256VectorWithoutInitialResponse) {
  SaslContext ctx;
  internal::ScramOptions o;
  o.server_nonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
  o.secrets = pencilSecrets(ScramDigest::kSha256, "W22ZaJ0SNY7soEsUEjb6gQ==");
  auto server = internal::makeScramServer(ctx, o);
  auto s0 = server->start(std::nullopt);
  ASSERT_EQ(s0.state, State::kContinue);
  EXPECT_EQ(s0.challenge, "");
  auto s1 = server->next("n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
  ASSERT_EQ(s1.state, State::kContinue) << s1.error.toString();
  EXPECT_EQ(s1.challenge,
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,"
            "i=4096");
  auto s2 = server->next(
      "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
      "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
  ASSERT_EQ(s2.state, State::kSuccess) << s2.error.toString();
  EXPECT_EQ(s2.challenge, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
  EXPECT_EQ(server->authenticatedUser(), "user");
  // The exchange is over: more input fails without undoing the success.
  EXPECT_EQ(server->next("c=biws").state, State::kFailure);
  EXPECT_EQ(server->authenticatedUser(), "user");
}

// ---------------------------------------------------------------------------------------------
// SCRAM-SHA-256 against a real UserStore.

TEST(SaslScram, UserStoreLoginAndServerSignature) {
  TempStore store;
  auto server = make("scram-sha-256", tlsContext(store.get()));  // case-insensitive name
  ASSERT_TRUE(server);
  ScramClient c("alice@example.com", "wonderland");
  auto s1 = server->start(c.first());
  ASSERT_EQ(s1.state, State::kContinue) << s1.error.toString();
  EXPECT_NE(s1.challenge.find(",i=32"), std::string::npos) << s1.challenge;
  // 18 random bytes, base64: 24 characters after the client's nonce.
  size_t snonce_len = s1.challenge.find(',') - 2 - c.cnonce.size();
  EXPECT_EQ(snonce_len, 24u);
  auto s2 = server->next(c.final(s1.challenge));
  ASSERT_EQ(s2.state, State::kSuccess) << s2.error.toString();
  EXPECT_EQ(s2.challenge, c.expected_server_final);
  EXPECT_EQ(server->authenticatedUser(), "alice@example.com");
}

TEST(SaslScram, WrongPasswordAndUnknownUserFailAlike) {
  TempStore store;
  for (const char* user : {"user", "nobody", "not+a+name"}) {
    auto server = make("SCRAM-SHA-256", tlsContext(store.get()));
    ScramClient c(user, "not pencil");
    auto s1 = server->start(c.first());
    ASSERT_EQ(s1.state, State::kContinue) << user << ": " << s1.error.toString();
    auto s2 = server->next(c.final(s1.challenge));
    expectFailure(s2, Code::kPermission, "authentication failed", "e=invalid-proof");
    EXPECT_EQ(s2.error.message(), "authentication failed");
    EXPECT_TRUE(server->authenticatedUser().empty());
  }
  // An unknown user gets the same salt each time, so probing twice reveals nothing either.
  auto a = make("SCRAM-SHA-256", tlsContext(store.get()));
  auto b = make("SCRAM-SHA-256", tlsContext(store.get()));
  std::string fa = a->start("n,,n=ghost,r=abc").challenge;
  std::string fb = b->start("n,,n=ghost,r=abc").challenge;
  EXPECT_EQ(fa.substr(fa.find(",s=")), fb.substr(fb.find(",s=")));
}

TEST(SaslScram, UsernameEscapingAndAuthzid) {
  SaslContext ctx;
  internal::ScramOptions o;
  o.secrets = [](const std::string& user) -> base::Result<ScramSecrets> {
    if (user != "odd,user=name") return base::Status::notFound("no");
    return deriveScramSecrets(ScramDigest::kSha256, "pw", "salt", 8);
  };
  {
    auto server = internal::makeScramServer(ctx, o);
    ScramClient c("odd=2Cuser=3Dname", "pw");
    auto s1 = server->start(c.first());
    ASSERT_EQ(s1.state, State::kContinue) << s1.error.toString();
    auto s2 = server->next(c.final(s1.challenge));
    ASSERT_EQ(s2.state, State::kSuccess) << s2.error.toString();
    EXPECT_EQ(server->authenticatedUser(), "odd,user=name");
  }
  {
    auto server = internal::makeScramServer(ctx, o);
    ScramClient c("odd=2Cuser=3Dname", "pw", "n,a=odd=2Cuser=3Dname,");
    auto s1 = server->start(c.first());
    ASSERT_EQ(s1.state, State::kContinue);
    EXPECT_EQ(server->next(c.final(s1.challenge)).state, State::kSuccess);
  }
  {
    auto server = internal::makeScramServer(ctx, o);
    ScramClient c("odd=2Cuser=3Dname", "pw", "n,a=root,");
    auto s1 = server->start(c.first());
    ASSERT_EQ(s1.state, State::kContinue);
    expectFailure(server->next(c.final(s1.challenge)), Code::kPermission,
                  "authorization identity not allowed");
    EXPECT_TRUE(server->authenticatedUser().empty());
  }
  for (const char* bad : {"n,,n=a=2D,r=x", "n,,n=a=,r=x", "n,,n=a=2c,r=x", "n,,n=\xff,r=x"}) {
    auto server = internal::makeScramServer(ctx, o);
    expectFailure(server->start(bad), Code::kInvalid, "user name encoding",
                  "e=invalid-username-encoding");
  }
}

// ---------------------------------------------------------------------------------------------
// Channel binding.

TEST(SaslScramPlus, MatchingBindingSucceeds) {
  TempStore store;
  SaslContext ctx = boundContext(store.get());
  auto offered = offeredMechanisms(ctx);
  ASSERT_FALSE(offered.empty());
  EXPECT_EQ(offered[0], "SCRAM-SHA-256-PLUS");
  auto server = make("SCRAM-SHA-256-PLUS", ctx);
  ScramClient c("user", "pencil", "p=tls-exporter,,", ctx.binding.data);
  auto s1 = server->start(c.first());
  ASSERT_EQ(s1.state, State::kContinue) << s1.error.toString();
  auto s2 = server->next(c.final(s1.challenge));
  ASSERT_EQ(s2.state, State::kSuccess) << s2.error.toString();
  EXPECT_EQ(s2.challenge, c.expected_server_final);
  EXPECT_EQ(server->authenticatedUser(), "user");
}

TEST(SaslScramPlus, MismatchedBindingFails) {
  TempStore store;
  SaslContext ctx = boundContext(store.get());
  // What a client talking to a man in the middle sees: another TLS session's binding.
  for (std::string other : {std::string("other session"), std::string(), ctx.binding.data + "x"}) {
    auto server = make("SCRAM-SHA-256-PLUS", ctx);
    ScramClient c("user", "pencil", "p=tls-exporter,,", other);
    auto s1 = server->start(c.first());
    ASSERT_EQ(s1.state, State::kContinue);
    expectFailure(server->next(c.final(s1.challenge)), Code::kPermission,
                  "channel bindings don't match", "e=channel-bindings-dont-match");
  }
  // A c= that claims "n" while the GS2 header said "p" does not match either.
  auto server = make("SCRAM-SHA-256-PLUS", ctx);
  ScramClient c("user", "pencil", "p=tls-exporter,,");
  auto s1 = server->start(c.first());
  c.gs2 = "n,,";
  expectFailure(server->next(c.final(s1.challenge)), Code::kPermission,
                "channel bindings don't match");
}

TEST(SaslScramPlus, FlagRules) {
  TempStore store;
  SaslContext bound = boundContext(store.get());
  SaslContext unbound = tlsContext(store.get());

  // -PLUS needs "p=" with the type we have.
  expectFailure(make("SCRAM-SHA-256-PLUS", bound)->start("n,,n=user,r=abc"), Code::kInvalid,
                "requires channel binding");
  expectFailure(make("SCRAM-SHA-256-PLUS", bound)->start("y,,n=user,r=abc"), Code::kInvalid,
                "requires channel binding");
  expectFailure(make("SCRAM-SHA-256-PLUS", bound)->start("p=tls-unique,,n=user,r=abc"),
                Code::kNotSupported, "tls-unique not supported",
                "e=unsupported-channel-binding-type");
  // "p=" with the plain mechanism is a client error.
  expectFailure(make("SCRAM-SHA-256", bound)->start("p=tls-exporter,,n=user,r=abc"), Code::kInvalid,
                "without -PLUS");
  // Downgrade protection: "y" means "I could bind but you can't"; we can, so -PLUS was
  // stripped from what the client saw.
  expectFailure(make("SCRAM-SHA-256", bound)->start("y,,n=user,r=abc"), Code::kPermission,
                "downgrade", "e=server-does-support-channel-binding");
  // Without a binding to offer, "y" is fine, and so is "n" either way.
  EXPECT_EQ(make("SCRAM-SHA-256", unbound)->start("y,,n=user,r=abc").state, State::kContinue);
  EXPECT_EQ(make("SCRAM-SHA-256", bound)->start("n,,n=user,r=abc").state, State::kContinue);
  {
    auto server = make("SCRAM-SHA-256", unbound);
    ScramClient c("user", "pencil", "y,,");
    auto s1 = server->start(c.first());
    EXPECT_EQ(server->next(c.final(s1.challenge)).state, State::kSuccess);
  }
  // No binding, no -PLUS.
  auto r = makeSaslServer("SCRAM-SHA-256-PLUS", unbound);
  EXPECT_EQ(r.status().code(), Code::kNotSupported);
  SaslContext odd = unbound;
  odd.binding = {"tls-unique", "x"};  // a type we do not do: not offered
  EXPECT_EQ(offeredMechanisms(odd)[0], "SCRAM-SHA-256");
}

// ---------------------------------------------------------------------------------------------
// Malformed SCRAM input.

TEST(SaslScram, MalformedClientFirst) {
  TempStore store;
  SaslContext ctx = tlsContext(store.get());
  struct Case {
    std::string msg;
    Code code;
    const char* text;
  };
  const Case cases[] = {
      {"", Code::kInvalid, "GS2 header"},
      {"garbage", Code::kInvalid, "GS2 header"},
      {"n,", Code::kInvalid, "GS2 header"},
      {"x,,n=user,r=abc", Code::kInvalid, "channel binding flag"},
      {"p=,,n=user,r=abc", Code::kInvalid, "channel binding flag"},
      {"p=tls exporter,,n=user,r=abc", Code::kInvalid, "channel binding flag"},
      {"n,b=user,n=user,r=abc", Code::kInvalid, "authorization identity"},
      {"n,a=,n=user,r=abc", Code::kInvalid, "authorization identity"},
      {"n,,", Code::kInvalid, "must start n="},
      {"n,,n=user", Code::kInvalid, "must start n="},
      {"n,,r=abc,n=user", Code::kInvalid, "must start n="},
      {"n,,n=,r=abc", Code::kInvalid, "user name encoding"},
      {"n,,n=user,r=", Code::kInvalid, "nonce"},
      {"n,,n=user,r=a b", Code::kInvalid, "nonce"},
      {"n,,n=user,r=abc\x80", Code::kInvalid, "nonce"},
      {"n,,n=user,r=abc,", Code::kInvalid, "extension"},
      {"n,,n=user,r=abc,1=x", Code::kInvalid, "extension"},
      {std::string("n,,n=us\0er,r=abc", 16), Code::kInvalid, "NUL"},
      {"n,,m=foo,n=user,r=abc", Code::kNotSupported, "mandatory extension"},
      {std::string(kMaxSaslResponseBytes + 1, 'n'), Code::kTooBig, "longer than"},
  };
  for (const auto& c : cases) {
    auto server = make("SCRAM-SHA-256", ctx);
    auto step = server->start(c.msg);
    expectFailure(step, c.code, c.text);
    if (c.code == Code::kNotSupported) {
      EXPECT_EQ(step.challenge, "e=extensions-not-supported");
    }
  }
  // Unknown optional extensions are ignored (RFC 5802 §7).
  EXPECT_EQ(make("SCRAM-SHA-256", ctx)->start("n,,n=user,r=abc,x=future").state, State::kContinue);
}

TEST(SaslScram, MalformedClientFinal) {
  TempStore store;
  SaslContext ctx = tlsContext(store.get());
  ScramClient good("user", "pencil");
  struct Case {
    std::function<std::string(const std::string& nonce, const std::string& valid)> build;
    Code code;
    const char* text;
    const char* server_error;
  };
  const std::string proof32 = b64(std::string(32, 'p'));
  const Case cases[] = {
      {[](auto&, auto&) { return std::string(); }, Code::kInvalid, "no proof", "e=other-error"},
      {[](auto& n, auto&) { return "c=biws,r=" + n; }, Code::kInvalid, "no proof", nullptr},
      {[&](auto& n, auto&) { return "c=biws,r=" + n + ",p=" + proof32 + ",x=1"; }, Code::kInvalid,
       "last attribute", nullptr},
      {[&](auto& n, auto&) { return "r=" + n + ",c=biws,p=" + proof32; }, Code::kInvalid,
       "must start c=", nullptr},
      {[&](auto&, auto&) { return "c=biws,p=" + proof32; }, Code::kInvalid,
       "must start c=", nullptr},
      {[&](auto& n, auto&) { return "c=bi!s,r=" + n + ",p=" + proof32; }, Code::kInvalid,
       "c=) is not valid base64", "e=invalid-encoding"},
      {[&](auto& n, auto&) { return "c=biws=,r=" + n + ",p=" + proof32; }, Code::kInvalid,
       "c=) is not valid base64", "e=invalid-encoding"},
      {[](auto& n, auto&) { return "c=biws,r=" + n + ",p=AAA"; }, Code::kInvalid,
       "p=) is not valid base64", "e=invalid-encoding"},
      {[](auto& n, auto&) { return "c=biws,r=" + n + ",p=" + b64("short"); }, Code::kInvalid,
       "wrong length", nullptr},
      {[&](auto& n, auto&) { return "c=biws,r=" + n + "x,p=" + proof32; }, Code::kInvalid, "nonce",
       nullptr},
      {[&](auto&, auto&) { return "c=biws,r=rOprNGfwEbeRWgbNEkqO,p=" + proof32; }, Code::kInvalid,
       "nonce", nullptr},
      {[&](auto& n, auto&) { return "c=biws,r=" + n + ",;,p=" + proof32; }, Code::kInvalid,
       "extension", nullptr},
      {[](auto&, auto& v) { return v + std::string(kMaxSaslResponseBytes, 'A'); }, Code::kTooBig,
       "longer than", nullptr},
      {[](auto&, auto& v) { return v.substr(0, 10) + std::string(1, '\0') + v.substr(11); },
       Code::kInvalid, "NUL", "e=invalid-encoding"},
  };
  for (const auto& c : cases) {
    auto server = make("SCRAM-SHA-256", ctx);
    ScramClient client = good;
    auto s1 = server->start(client.first());
    ASSERT_EQ(s1.state, State::kContinue);
    std::string nonce = s1.challenge.substr(2, s1.challenge.find(',') - 2);
    std::string valid = client.final(s1.challenge);
    auto step = server->next(c.build(nonce, valid));
    expectFailure(step, c.code, c.text, c.server_error != nullptr ? c.server_error : "");
    EXPECT_TRUE(server->authenticatedUser().empty());
  }
}

TEST(SaslScram, RandomBytesNeverCrashOrSucceed) {
  TempStore store;
  SaslContext ctx = boundContext(store.get());
  std::mt19937 rng(5802);
  for (int round = 0; round < 3000; ++round) {
    auto server = make(round % 2 ? "SCRAM-SHA-256" : "SCRAM-SHA-256-PLUS", ctx);
    std::string junk(rng() % 200, '\0');
    for (auto& ch : junk) ch = static_cast<char>(rng());
    SaslServer::Step step;
    if (round % 3 == 0) {
      step = server->start(junk);
    } else {
      // Get past client-first, then send junk as client-final.
      step = server->start(round % 2 ? "n,,n=user,r=abc" : "p=tls-exporter,,n=user,r=abc");
      ASSERT_EQ(step.state, State::kContinue);
      step = server->next(junk);
    }
    ASSERT_EQ(step.state, State::kFailure);
    EXPECT_FALSE(step.error.isOk());
  }
}

TEST(SaslScram, StoreErrorsAreTemporary) {
  TempStore store;
  SaslContext ctx = tlsContext(store.get());
  auto server = make("SCRAM-SHA-256", ctx);
  std::ofstream(store.path() + ".new") << "# darius-users 1\nbroken\n";
  ASSERT_EQ(::rename((store.path() + ".new").c_str(), store.path().c_str()), 0);
  expectFailure(server->start("n,,n=user,r=abc"), Code::kTemporary, "corruption");
  auto plain = make("PLAIN", ctx);
  expectFailure(plain->start(std::string("\0user\0pencil", 12)), Code::kTemporary, "corruption");
}

}  // namespace
}  // namespace darius::auth
