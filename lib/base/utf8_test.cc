#include "lib/base/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace darius::base {
namespace {

TEST(Utf8, DecodesEachLength) {
  EXPECT_EQ(decodeUtf8("A", 0).length, 1u);
  auto two = decodeUtf8("\xc3\xa9", 0);  // é
  EXPECT_EQ(two.length, 2u);
  EXPECT_EQ(two.code_point, U'\u00e9');
  auto three = decodeUtf8("\xe2\x82\xac", 0);  // €
  EXPECT_EQ(three.length, 3u);
  EXPECT_EQ(three.code_point, U'\u20ac');
  auto four = decodeUtf8("\xf0\x9f\x93\xa7", 0);  // 📧
  EXPECT_EQ(four.length, 4u);
  EXPECT_EQ(four.code_point, U'\U0001f4e7');
}

TEST(Utf8, RejectsIllFormed) {
  for (std::string bad : {"\x80", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xf0\x80\x80\xaf",
                          "\xed\xa0\x80" /* surrogate */, "\xf4\x90\x80\x80" /* > U+10FFFF */,
                          "\xf5\x80\x80\x80", "\xe2\x82" /* truncated */, "\xc3\x28",
                          "\xff"}) {
    EXPECT_EQ(decodeUtf8(bad, 0).length, 0u) << testing::PrintToString(bad);
    EXPECT_FALSE(isValidUtf8(bad));
  }
}

TEST(Utf8, WholeStrings) {
  EXPECT_TRUE(isValidUtf8(""));
  EXPECT_TRUE(isValidUtf8("plain ascii"));
  EXPECT_TRUE(isValidUtf8("~peter/mail/\xe5\x8f\xb0\xe5\x8c\x97"));
  EXPECT_FALSE(isValidUtf8(std::string("ok\xc3", 3)));
  EXPECT_TRUE(isValidUtf8(std::string("nul\0inside", 10)));  // NUL is valid UTF-8
}

}  // namespace
}  // namespace darius::base
