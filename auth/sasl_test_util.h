// Helpers shared by the SASL tests: a SCRAM client written from RFC 5802 independently of the
// server code, a throw-away UserStore with two users, and assertions on failed steps.
//
// Ownership: TempStore owns its directory and removes it. Thread-safety: test code, one thread.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "auth/sasl.h"
#include "auth/scram.h"
#include "auth/user_store.h"
#include "lib/base/base64.h"

namespace darius::auth::test_util {

using State = SaslServer::State;
using base::Code;

inline std::string b64(std::string_view s) { return base::base64Encode(s); }

// The client half of SCRAM, written from RFC 5802 §3 independently of the server code.
struct ScramClient {
  ScramClient(std::string u, std::string p, std::string g = "n,,", std::string cb = {})
      : user(std::move(u)), password(std::move(p)), gs2(std::move(g)), cb_data(std::move(cb)) {}

  ScramDigest digest = ScramDigest::kSha256;
  std::string user;  // already saslname-escaped
  std::string password;
  std::string cnonce = "rOprNGfwEbeRWgbNEkqO";
  std::string gs2 = "n,,";
  std::string cb_data;  // appended to gs2 in c= (for p=)
  std::string expected_server_final;

  std::string bare() const { return "n=" + user + ",r=" + cnonce; }
  std::string first() const { return gs2 + bare(); }

  std::string final(const std::string& server_first) {
    std::map<char, std::string> attr;
    size_t pos = 0;
    while (pos <= server_first.size()) {
      size_t comma = server_first.find(',', pos);
      if (comma == std::string::npos) comma = server_first.size();
      std::string a = server_first.substr(pos, comma - pos);
      if (a.size() >= 2) attr[a[0]] = a.substr(2);
      pos = comma + 1;
    }
    EXPECT_EQ(attr['r'].rfind(cnonce, 0), 0u) << "server nonce must extend ours";
    auto salt = base::base64Decode(attr['s']);
    EXPECT_TRUE(salt.ok());
    uint32_t iterations = static_cast<uint32_t>(std::stoul(attr['i']));
    std::string without_proof = "c=" + b64(gs2 + cb_data) + ",r=" + attr['r'];
    std::string auth = bare() + "," + server_first + "," + without_proof;
    auto prepped = saslPrep(password);
    EXPECT_TRUE(prepped.ok());
    auto salted = scramSaltedPassword(digest, *prepped, *salt, iterations);
    EXPECT_TRUE(salted.ok());
    auto proof = scramClientProof(digest, *salted, auth);
    auto server_key = scramHmac(digest, *salted, "Server Key");
    auto sig = scramHmac(digest, *server_key, auth);
    expected_server_final = "v=" + b64(*sig);
    return without_proof + ",p=" + b64(*proof);
  }
};

class TempStore {
 public:
  TempStore() {
    char tmpl[] = "/tmp/darius-sasl-XXXXXX";
    dir_ = mkdtemp(tmpl);
    auto s = UserStore::open(dir_ + "/users", 32);
    EXPECT_TRUE(s.ok());
    store_ = std::move(*s);
    EXPECT_TRUE(store_->add("user", "pencil").isOk());
    EXPECT_TRUE(store_->add("alice@example.com", "wonderland").isOk());
  }
  ~TempStore() { (void)!system(("rm -rf '" + dir_ + "'").c_str()); }
  UserStore* get() { return store_.get(); }
  std::string path() const { return dir_ + "/users"; }

 private:
  std::string dir_;
  std::unique_ptr<UserStore> store_;
};

inline SaslContext tlsContext(UserStore* users) {
  SaslContext ctx;
  ctx.users = users;
  ctx.tls_active = true;
  return ctx;
}

inline SaslContext boundContext(UserStore* users) {
  SaslContext ctx = tlsContext(users);
  ctx.binding = {"tls-exporter", std::string("\x01\x02\x03 exporter bytes \xff", 20)};
  return ctx;
}

inline std::unique_ptr<SaslServer> make(std::string_view mech, const SaslContext& ctx) {
  auto r = makeSaslServer(mech, ctx);
  EXPECT_TRUE(r.ok()) << mech << ": " << r.status().toString();
  return r.ok() ? std::move(*r) : nullptr;
}

inline void expectFailure(const SaslServer::Step& step, Code code, std::string_view text,
                          std::string_view server_error = "") {
  EXPECT_EQ(step.state, State::kFailure);
  EXPECT_EQ(step.error.code(), code) << step.error.toString();
  EXPECT_NE(step.error.message().find(text), std::string::npos)
      << step.error.message() << " lacks " << text;
  if (!server_error.empty()) {
    EXPECT_EQ(step.challenge, server_error);
  }
}

}  // namespace darius::auth::test_util
