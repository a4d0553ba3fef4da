// The password check cache: hits only for the same user, stored hash and password, within
// the TTL; a password change (new stored hash) is a miss at once; bounded size.
#include "auth/credential_cache.h"

#include <gtest/gtest.h>

namespace darius::auth {
namespace {

TEST(CredentialCache, RemembersOnlyTheExactCredentialsForTheTtl) {
  CredentialCache c(std::chrono::seconds(60), 10);
  auto t0 = CredentialCache::Clock::now();
  c.setTimeForTest(t0);
  EXPECT_FALSE(c.check("alice", "$y$hash1", "secret"));
  c.remember("alice", "$y$hash1", "secret");
  EXPECT_TRUE(c.check("alice", "$y$hash1", "secret"));
  EXPECT_FALSE(c.check("alice", "$y$hash1", "secreT"));
  EXPECT_FALSE(c.check("alice", "$y$hash2", "secret")) << "password changed";
  EXPECT_FALSE(c.check("bob", "$y$hash1", "secret"));
  c.setTimeForTest(t0 + std::chrono::seconds(61));
  EXPECT_FALSE(c.check("alice", "$y$hash1", "secret")) << "expired";
}

TEST(CredentialCache, ForgetAndDisabled) {
  CredentialCache c(std::chrono::seconds(60), 10);
  c.remember("alice", "h", "p");
  c.forget("alice");
  EXPECT_FALSE(c.check("alice", "h", "p"));
  CredentialCache off(std::chrono::seconds(0), 10);
  off.remember("alice", "h", "p");
  EXPECT_FALSE(off.check("alice", "h", "p"));
}

TEST(CredentialCache, StaysWithinItsSize) {
  CredentialCache c(std::chrono::seconds(60), 3);
  for (int i = 0; i < 10; ++i) c.remember("user" + std::to_string(i), "h", "p");
  int hits = 0;
  for (int i = 0; i < 10; ++i) hits += c.check("user" + std::to_string(i), "h", "p");
  EXPECT_EQ(hits, 3);
  EXPECT_TRUE(c.check("user9", "h", "p")) << "the newest stays";
}

}  // namespace
}  // namespace darius::auth
