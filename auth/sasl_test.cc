// PLAIN, LOGIN, mechanism selection, and the golden users file through the mechanisms.
#include "auth/sasl.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "auth/sasl_mechanisms.h"
#include "auth/sasl_test_util.h"
#include "auth/user_store.h"

namespace darius::auth {
namespace {

using namespace test_util;  // NOLINT

// ---------------------------------------------------------------------------------------------
// PLAIN and LOGIN.

TEST(SaslPlain, GoodAndBad) {
  TempStore store;
  SaslContext ctx = tlsContext(store.get());
  {
    auto s = make("PLAIN", ctx);
    auto step = s->start(std::string("\0user\0pencil", 12));
    ASSERT_EQ(step.state, State::kSuccess) << step.error.toString();
    EXPECT_EQ(step.challenge, "");
    EXPECT_EQ(s->authenticatedUser(), "user");
  }
  {
    auto s = make("plain", ctx);
    auto step = s->start(std::nullopt);  // no SASL-IR: empty challenge, then the response
    ASSERT_EQ(step.state, State::kContinue);
    EXPECT_EQ(step.challenge, "");
    step = s->next(std::string("user\0user\0pencil", 16));  // authzid == authcid
    ASSERT_EQ(step.state, State::kSuccess) << step.error.toString();
    EXPECT_EQ(s->authenticatedUser(), "user");
  }
  auto run = [&](std::string msg) { return make("PLAIN", ctx)->start(msg); };
  expectFailure(run(std::string("\0user\0pencil2", 13)), Code::kPermission,
                "authentication failed");
  expectFailure(run(std::string("\0nobody\0pencil", 14)), Code::kPermission,
                "authentication failed");
  EXPECT_EQ(run(std::string("\0user\0x", 7)).error, run(std::string("\0ghost\0x", 8)).error);
  expectFailure(run(std::string("alice@example.com\0user\0pencil", 29)), Code::kPermission,
                "authorization identity not allowed");
  expectFailure(run(""), Code::kInvalid, "expected authzid");
  expectFailure(run("userpencil"), Code::kInvalid, "expected authzid");
  expectFailure(run(std::string("user\0pencil", 11)), Code::kInvalid, "expected authzid");
  expectFailure(run(std::string("\0\0pencil", 8)), Code::kInvalid, "empty user name");
  expectFailure(run(std::string("\0user\0", 6)), Code::kInvalid, "empty password");
  expectFailure(run(std::string("\0user\0pen\0cil", 13)), Code::kInvalid, "NUL in password");
  expectFailure(run(std::string("\0us\xffr\0pencil", 12)), Code::kInvalid, "not UTF-8");
  expectFailure(run(std::string(kMaxSaslResponseBytes + 1, 'x')), Code::kTooBig, "longer than");
}

TEST(SaslPlain, AnAllowedUserActsAsAnother) {
  // RFC 4616 §2: the authorization identity. The protocol's policy (admins) decides; the
  // target must exist; the password checked is always the authentication identity's.
  TempStore store;
  SaslContext ctx = tlsContext(store.get());
  auto proxy = [&](std::string msg) { return make("PLAIN", ctx)->start(msg); };
  // No policy: nobody may.
  expectFailure(proxy(std::string("alice@example.com\0user\0pencil", 29)), Code::kPermission,
                "authorization identity not allowed");
  ctx.may_act_as = [](std::string_view authcid, std::string_view) { return authcid == "user"; };
  auto s = make("PLAIN", ctx);
  auto step = s->start(std::string("alice@example.com\0user\0pencil", 29));
  ASSERT_EQ(step.state, State::kSuccess) << step.error.toString();
  EXPECT_EQ(s->authenticatedUser(), "alice@example.com");
  EXPECT_EQ(s->authenticationId(), "user");
  // The policy says no for this one; the target does not exist; the password is wrong.
  expectFailure(proxy(std::string("user\0alice@example.com\0wonderland", 33)), Code::kPermission,
                "authorization identity not allowed");
  expectFailure(proxy(std::string("ghost\0user\0pencil", 17)), Code::kPermission,
                "authorization identity not allowed");
  expectFailure(proxy(std::string("alice@example.com\0user\0wrong", 28)), Code::kPermission,
                "authentication failed");
}

TEST(SaslLogin, GoodAndBad) {
  TempStore store;
  SaslContext ctx = tlsContext(store.get());
  {
    auto s = make("LOGIN", ctx);
    auto step = s->start(std::nullopt);
    ASSERT_EQ(step.state, State::kContinue);
    EXPECT_EQ(step.challenge, "Username:");
    step = s->next("alice@example.com");
    ASSERT_EQ(step.state, State::kContinue);
    EXPECT_EQ(step.challenge, "Password:");
    step = s->next("wonderland");
    ASSERT_EQ(step.state, State::kSuccess) << step.error.toString();
    EXPECT_EQ(s->authenticatedUser(), "alice@example.com");
    EXPECT_EQ(s->next("more").state, State::kFailure);
    EXPECT_EQ(s->authenticatedUser(), "alice@example.com");
  }
  {
    auto s = make("login", ctx);
    auto step = s->start("user");  // user name as the initial response
    ASSERT_EQ(step.state, State::kContinue);
    EXPECT_EQ(step.challenge, "Password:");
    EXPECT_EQ(s->next("pencil").state, State::kSuccess);
  }
  for (const char* user : {"user", "nobody"}) {
    auto s = make("LOGIN", ctx);
    s->start(std::nullopt);
    s->next(user);
    expectFailure(s->next("wrong"), Code::kPermission, "authentication failed");
    EXPECT_TRUE(s->authenticatedUser().empty());
  }
  {
    auto s = make("LOGIN", ctx);
    s->start(std::nullopt);
    expectFailure(s->next(""), Code::kInvalid, "empty user name");
  }
  {
    auto s = make("LOGIN", ctx);
    s->start("user");
    expectFailure(s->next(std::string(kMaxSaslResponseBytes + 1, 'x')), Code::kTooBig,
                  "longer than");
  }
}

// ---------------------------------------------------------------------------------------------
// Mechanism selection.

TEST(Sasl, OfferedMechanisms) {
  TempStore store;
  SaslContext ctx;
  ctx.users = store.get();
  EXPECT_EQ(offeredMechanisms(ctx), (std::vector<std::string>{"SCRAM-SHA-256"}));
  ctx.allow_plaintext = true;
  EXPECT_EQ(offeredMechanisms(ctx), (std::vector<std::string>{"SCRAM-SHA-256", "PLAIN", "LOGIN"}));
  EXPECT_EQ(offeredMechanisms(boundContext(store.get())),
            (std::vector<std::string>{"SCRAM-SHA-256-PLUS", "SCRAM-SHA-256", "PLAIN", "LOGIN"}));
}

TEST(Sasl, MechanismSelectionErrors) {
  TempStore store;
  SaslContext cleartext;
  cleartext.users = store.get();
  for (const char* mech : {"PLAIN", "login"}) {
    auto r = makeSaslServer(mech, cleartext);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kPermission);
    EXPECT_NE(r.status().message().find("requires TLS"), std::string::npos);
  }
  EXPECT_TRUE(makeSaslServer("SCRAM-SHA-256", cleartext).ok());  // no password on the wire
  for (const char* mech : {"CRAM-MD5", "SCRAM-SHA-1", "GSSAPI", "", "PLAIN ", "SCRAM-SHA-256-"}) {
    auto r = makeSaslServer(mech, tlsContext(store.get()));
    ASSERT_FALSE(r.ok()) << mech;
    EXPECT_EQ(r.status().code(), Code::kNotSupported) << mech;
  }
  SaslContext no_store = tlsContext(nullptr);
  EXPECT_EQ(makeSaslServer("PLAIN", no_store).status().code(), Code::kInvalid);
}

// The golden v1 users file (tests/data/formats/users/v1/README.md) through the real mechanisms.
TEST(Sasl, GoldenFileV1) {
  const char* src = getenv("DARIUS_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "DARIUS_SOURCE_DIR is set by ctest";
  auto store = UserStore::open(std::string(src) + "/tests/data/formats/users/v1/users", 4096);
  ASSERT_TRUE(store.ok()) << store.status().toString();
  SaslContext ctx = tlsContext(store->get());
  const std::pair<std::string, std::string> users[] = {
      {"alice", "wonderland"},
      {"bob@example.com", "b\u00f6b\u00a0secret"},
  };
  for (const auto& [user, password] : users) {
    auto plain = make("PLAIN", ctx);
    EXPECT_EQ(plain->start(std::string(1, '\0') + user + '\0' + password).state, State::kSuccess)
        << user;
    auto scram = make("SCRAM-SHA-256", ctx);
    ScramClient c(user, password);
    auto s1 = scram->start(c.first());
    ASSERT_EQ(s1.state, State::kContinue) << user;
    EXPECT_NE(s1.challenge.find(",i=4096"), std::string::npos);
    auto s2 = scram->next(c.final(s1.challenge));
    ASSERT_EQ(s2.state, State::kSuccess) << user << ": " << s2.error.toString();
    EXPECT_EQ(s2.challenge, c.expected_server_final);
  }
}

TEST(Sasl, Utf8Validator) {
  EXPECT_TRUE(internal::isValidUtf8("plain ascii"));
  EXPECT_TRUE(internal::isValidUtf8("b\u00f6b \u20ac \U0001f600"));
  for (const char* bad : {"\x80", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                          "\xc3", "\xf0\x9f\x98", "\xfe"}) {
    EXPECT_FALSE(internal::isValidUtf8(bad)) << bad;
  }
}

}  // namespace
}  // namespace darius::auth
