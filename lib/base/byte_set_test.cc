#include "lib/base/byte_set.h"

#include <gtest/gtest.h>

#include <string>

namespace darius::base {
namespace {

constexpr ByteSet kCrNul(std::string_view("\r\0", 2));

TEST(ByteSetTest, FindsTheFirstMemberFromPos) {
  EXPECT_EQ(kCrNul.findIn("abc\rdef\r"), 3u);
  EXPECT_EQ(kCrNul.findIn("abc\rdef\r", 4), 7u);
  EXPECT_EQ(kCrNul.findIn(std::string_view("ab\0c\r", 5)), 2u);
  EXPECT_EQ(kCrNul.findIn("plain text"), std::string_view::npos);
  EXPECT_EQ(kCrNul.findIn("", 0), std::string_view::npos);
  EXPECT_EQ(kCrNul.findIn("a\r", 2), std::string_view::npos);
  EXPECT_EQ(kCrNul.findIn("a\r", 9), std::string_view::npos);  // pos past the end
}

TEST(ByteSetTest, AgreesWithFindFirstOfOnEveryByteValue) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  for (std::string_view set : {std::string_view("\r\n", 2), std::string_view("\r\n\0", 3),
                               std::string_view("\xff\x80"), std::string_view("")}) {
    ByteSet b(set);
    for (size_t pos = 0; pos <= all.size(); pos += 17) {
      EXPECT_EQ(b.findIn(all, pos), std::string_view(all).find_first_of(set, pos));
    }
    for (int c = 0; c < 256; ++c) {
      EXPECT_EQ(b.contains(static_cast<char>(c)),
                set.find(static_cast<char>(c)) != std::string_view::npos);
    }
  }
}

TEST(ByteSetTest, WorksAtCompileTime) {
  static_assert(ByteSet("\n").findIn("ab\ncd") == 2);
  static_assert(!ByteSet("xyz").contains('a'));
}

}  // namespace
}  // namespace darius::base
