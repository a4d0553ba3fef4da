#include "auth/password_hash.h"

#include <gtest/gtest.h>

namespace darius::auth {
namespace {

TEST(PasswordHash, HashIsYescryptAndVerifies) {
  auto h = hashPassword("correct horse battery staple");
  ASSERT_TRUE(h.ok()) << h.status().toString();
  EXPECT_EQ(h->substr(0, 3), "$y$");
  EXPECT_TRUE(isSupportedHash(*h));
  EXPECT_TRUE(verifyPassword("correct horse battery staple", *h));
  EXPECT_FALSE(verifyPassword("correct horse battery stapl", *h));
  EXPECT_FALSE(verifyPassword("correct horse battery staple ", *h));
  EXPECT_FALSE(verifyPassword("", *h));
}

TEST(PasswordHash, SaltsDiffer) {
  auto a = hashPassword("pencil");
  auto b = hashPassword("pencil");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
  EXPECT_TRUE(verifyPassword("pencil", *a));
  EXPECT_TRUE(verifyPassword("pencil", *b));
}

TEST(PasswordHash, NonAsciiAndLongPasswords) {
  std::string utf8 = "p\u00e4ssw\u00f6rd \u20ac";
  auto h = hashPassword(utf8);
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(verifyPassword(utf8, *h));
  std::string longpw(kMaxPasswordBytes, 'x');
  auto l = hashPassword(longpw);
  ASSERT_TRUE(l.ok()) << l.status().toString();
  EXPECT_TRUE(verifyPassword(longpw, *l));
  // yescrypt, unlike DES crypt, uses every byte.
  EXPECT_FALSE(verifyPassword(std::string(kMaxPasswordBytes - 1, 'x') + "y", *l));
  auto too_long = hashPassword(longpw + "x");
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.status().code(), base::Code::kInvalid);
  EXPECT_FALSE(verifyPassword(longpw + "x", *l));
}

TEST(PasswordHash, RejectsNul) {
  std::string with_nul("pass\0word", 9);
  auto h = hashPassword(with_nul);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), base::Code::kInvalid);
  auto good = hashPassword("pass");
  ASSERT_TRUE(good.ok());
  // crypt(3) would stop at the NUL and accept "pass\0anything" for "pass".
  EXPECT_FALSE(verifyPassword(std::string("pass\0word", 9), *good));
}

TEST(PasswordHash, AcceptsSha512CryptFromShadow) {
  // `mkpasswd -m sha-512 -S saltsalt pencil`, as /etc/shadow would hold it.
  const char* h =
      "$6$saltsalt$rD9fW1BwIrjB90WCgCTdIQc3phTBhf04I6Iw/XlgKD9E9aEbzqGZipjiFxGo/4wWXDA6jV6/vZO."
      "kKdDSfUJb0";
  EXPECT_TRUE(isSupportedHash(h));
  EXPECT_TRUE(verifyPassword("pencil", h));
  EXPECT_FALSE(verifyPassword("pencil2", h));
}

TEST(PasswordHash, RefusesLegacyLockedAndGarbageHashes) {
  // Traditional DES: 8-byte truncation, and any 13 characters look like a hash.
  EXPECT_FALSE(isSupportedHash("abJ32bJMdTsnY"));
  EXPECT_FALSE(verifyPassword("pencil", "abJ32bJMdTsnY"));
  EXPECT_FALSE(isSupportedHash("$1$abc$x"));  // md5crypt
  for (const char* bad :
       {"", "*", "!", "!$6$saltsalt$x", "garbage", "$y$", "$y$j9T$", "$y$j9T$abcdefghijklmnop$"}) {
    EXPECT_FALSE(verifyPassword("pencil", bad)) << bad;
  }
  EXPECT_FALSE(verifyPassword("pencil", std::string("$y$\0", 4)));
}

TEST(PasswordHash, TruncatedRealHashDoesNotVerify) {
  auto h = hashPassword("pencil");
  ASSERT_TRUE(h.ok());
  for (size_t n = 0; n < h->size(); n += 5) {
    EXPECT_FALSE(verifyPassword("pencil", h->substr(0, n))) << n;
  }
}

}  // namespace
}  // namespace darius::auth
