#include "auth/scram.h"

#include <gtest/gtest.h>

#include "lib/base/base64.h"

namespace darius::auth {
namespace {

std::string b64(std::string_view s) { return base::base64Encode(s); }
std::string unb64(std::string_view s) {
  auto r = base::base64Decode(s);
  EXPECT_TRUE(r.ok()) << s;
  return r.ok() ? *r : std::string();
}

struct Vector {
  ScramDigest digest;
  const char* salt_b64;
  const char* client_first_bare;
  const char* server_first;
  const char* client_final_without_proof;
  const char* proof_b64;
  const char* server_signature_b64;
};

// RFC 5802 §5 (SCRAM-SHA-1) and RFC 7677 §3 (SCRAM-SHA-256): user "user", password "pencil".
const Vector kVectors[] = {
    {ScramDigest::kSha1, "QSXCR+Q6sek8bf92", "n=user,r=fyko+d2lbbFgONRv9qkxdawL",
     "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
     "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j",
     "v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", "rmF9pqV8S7suAoZWja4dJRkFsKQ="},
    {ScramDigest::kSha256, "W22ZaJ0SNY7soEsUEjb6gQ==", "n=user,r=rOprNGfwEbeRWgbNEkqO",
     "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
     "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
     "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
     "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="},
};

TEST(Scram, RfcVectors) {
  for (const auto& v : kVectors) {
    const std::string auth_message = std::string(v.client_first_bare) + "," + v.server_first + "," +
                                     v.client_final_without_proof;
    auto secrets = deriveScramSecrets(v.digest, "pencil", unb64(v.salt_b64), 4096);
    ASSERT_TRUE(secrets.ok()) << secrets.status().toString();
    EXPECT_EQ(secrets->iterations, 4096u);
    EXPECT_EQ(secrets->stored_key.size(), scramDigestSize(v.digest));

    auto salted = scramSaltedPassword(v.digest, "pencil", unb64(v.salt_b64), 4096);
    ASSERT_TRUE(salted.ok());
    auto proof = scramClientProof(v.digest, *salted, auth_message);
    ASSERT_TRUE(proof.ok());
    EXPECT_EQ(b64(*proof), v.proof_b64);
    EXPECT_TRUE(scramVerifyClientProof(v.digest, secrets->stored_key, auth_message, *proof));

    auto sig = scramServerSignature(v.digest, secrets->server_key, auth_message);
    ASSERT_TRUE(sig.ok());
    EXPECT_EQ(b64(*sig), v.server_signature_b64);
  }
}

TEST(Scram, WrongProofsFail) {
  auto secrets = deriveScramSecrets(ScramDigest::kSha256, "pencil", "salt", 16);
  ASSERT_TRUE(secrets.ok());
  auto salted = scramSaltedPassword(ScramDigest::kSha256, "pencil", "salt", 16);
  ASSERT_TRUE(salted.ok());
  auto proof = scramClientProof(ScramDigest::kSha256, *salted, "auth message");
  ASSERT_TRUE(proof.ok());
  EXPECT_TRUE(
      scramVerifyClientProof(ScramDigest::kSha256, secrets->stored_key, "auth message", *proof));
  EXPECT_FALSE(
      scramVerifyClientProof(ScramDigest::kSha256, secrets->stored_key, "auth messagE", *proof));
  std::string flipped = *proof;
  flipped[7] ^= 1;
  EXPECT_FALSE(
      scramVerifyClientProof(ScramDigest::kSha256, secrets->stored_key, "auth message", flipped));
  EXPECT_FALSE(scramVerifyClientProof(ScramDigest::kSha256, secrets->stored_key, "auth message",
                                      proof->substr(0, 31)));
  EXPECT_FALSE(
      scramVerifyClientProof(ScramDigest::kSha256, secrets->stored_key, "auth message", ""));
  EXPECT_FALSE(scramVerifyClientProof(ScramDigest::kSha256, "", "auth message", *proof));
}

TEST(Scram, IterationBounds) {
  EXPECT_EQ(scramSaltedPassword(ScramDigest::kSha256, "p", "s", 0).status().code(),
            base::Code::kInvalid);
  EXPECT_EQ(scramSaltedPassword(ScramDigest::kSha256, "p", "s", 0x80000000u).status().code(),
            base::Code::kInvalid);
  EXPECT_TRUE(scramSaltedPassword(ScramDigest::kSha256, "p", "s", 1).ok());
}

// RFC 4013 §3 examples, plus the mappings this server depends on.
// "\u" escapes: both compilers encode them as UTF-8 in narrow literals.
TEST(SaslPrep, Rfc4013Examples) {
  EXPECT_EQ(*saslPrep("I\u00adX"), "IX");  // SOFT HYPHEN mapped to nothing
  EXPECT_EQ(*saslPrep("user"), "user");
  EXPECT_EQ(*saslPrep("USER"), "USER");                                  // no case folding
  EXPECT_EQ(*saslPrep("\u00aa"), "a");                                   // NFKC
  EXPECT_EQ(*saslPrep("\u2168"), "IX");                                  // ROMAN NUMERAL NINE, NFKC
  EXPECT_EQ(saslPrep("\x07").status().code(), base::Code::kInvalid);     // prohibited
  EXPECT_EQ(saslPrep("\u06271").status().code(), base::Code::kInvalid);  // bidi
}

TEST(SaslPrep, SpacesControlsAndEncoding) {
  EXPECT_EQ(*saslPrep("a\u00a0b"), "a b");  // NO-BREAK SPACE -> SPACE
  EXPECT_EQ(*saslPrep("a\u2000b"), "a b");  // EN QUAD -> SPACE
  EXPECT_EQ(*saslPrep("a\u200bb"), "a b");  // ZERO WIDTH SPACE: in C.1.2 and B.1; C.1.2 wins
  EXPECT_EQ(*saslPrep("a\u200db"), "ab");   // ZERO WIDTH JOINER -> nothing
  EXPECT_EQ(*saslPrep("pass word!~"), "pass word!~");   // printable ASCII unchanged
  EXPECT_EQ(*saslPrep("caf\u00e9"), "caf\u00e9");       // already NFKC
  EXPECT_EQ(*saslPrep("cafe\u0301"), "caf\u00e9");      // combining acute composed
  EXPECT_FALSE(saslPrep(std::string("a\0b", 3)).ok());  // NUL
  EXPECT_FALSE(saslPrep("tab\there").ok());
  EXPECT_FALSE(saslPrep("del\x7f").ok());
  EXPECT_FALSE(saslPrep("\ue000").ok());    // private use
  EXPECT_FALSE(saslPrep("\xff\xfe").ok());  // not UTF-8
  EXPECT_FALSE(saslPrep("\xc0\xaf").ok());  // overlong
  EXPECT_FALSE(saslPrep("").ok());
  EXPECT_FALSE(saslPrep("\u00ad").ok());  // empty after mapping
  // NFKC expands U+FDFA to 18 code points: the output outgrows the first buffer.
  std::string expanding;
  for (int i = 0; i < 100; ++i) expanding += "\ufdfa";
  auto expanded = saslPrep(expanding);
  ASSERT_TRUE(expanded.ok()) << expanded.status().toString();
  EXPECT_GT(expanded->size(), 100u * 18);
  // Unassigned in Unicode 3.2 (an emoji from 2010) is allowed, as for a query.
  EXPECT_TRUE(saslPrep("pw\U0001f600").ok());
}

TEST(SaslPrep, SecretsUsePreparedPassword) {
  auto a = deriveScramSecrets(ScramDigest::kSha256, "I\u00adX", "salt", 8);
  auto b = deriveScramSecrets(ScramDigest::kSha256, "IX", "salt", 8);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->stored_key, b->stored_key);
  EXPECT_EQ(a->server_key, b->server_key);
  EXPECT_EQ(deriveScramSecrets(ScramDigest::kSha256, "bad\x01", "salt", 8).status().code(),
            base::Code::kInvalid);
}

TEST(Scram, RandomBytes) {
  auto a = randomBytes(18);
  auto b = randomBytes(18);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 18u);
  EXPECT_NE(*a, *b);
  EXPECT_TRUE(randomBytes(0).ok());
}

}  // namespace
}  // namespace darius::auth
