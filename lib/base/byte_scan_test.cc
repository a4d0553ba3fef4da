// The word-at-a-time scans against a byte loop: every length up to a few words, every
// alignment, the byte searched for next to its neighbours in value (0x09/0x0b around '\n',
// 0x7f/0x80/0xff around the ASCII limit), so that a carry or borrow between bytes would show.
#include "lib/base/byte_scan.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace darius::base {
namespace {

size_t slowCount(std::string_view s, char c) {
  size_t n = 0;
  for (char x : s) n += x == c;
  return n;
}

size_t slowAsciiPrefix(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  return i;
}

TEST(ByteScan, CountByteMatchesAByteLoop) {
  std::mt19937 rng(7);
  const char alphabet[] = {'\n', '\t', '\x0b', '\r', 'a', '\0', '\x80', '\xff', '\x8a', '-'};
  for (int round = 0; round < 2000; ++round) {
    std::string buf(static_cast<size_t>(rng() % 40) + 3, ' ');
    for (char& ch : buf) ch = alphabet[rng() % sizeof alphabet];
    size_t off = rng() % 3;
    std::string_view s(buf.data() + off, buf.size() - off);
    for (char c : {'\n', '\0', '\xff', '\x8a', '-'}) {
      ASSERT_EQ(countByte(s, c), slowCount(s, c)) << "round " << round;
    }
  }
  EXPECT_EQ(countByte("", '\n'), 0u);
  EXPECT_EQ(countByte(std::string(1000, '\n'), '\n'), 1000u);
  EXPECT_EQ(countByte(std::string(1000, '\x0b'), '\n'), 0u);
}

TEST(ByteScan, AsciiPrefixStopsAtTheFirstHighByte) {
  std::mt19937 rng(11);
  for (int round = 0; round < 2000; ++round) {
    std::string buf(static_cast<size_t>(rng() % 40) + 1, 'x');
    for (char& ch : buf) ch = static_cast<char>(rng() % 128);
    if (rng() % 4 != 0) buf[rng() % buf.size()] = static_cast<char>(0x80 + rng() % 128);
    ASSERT_EQ(asciiPrefixLength(buf), slowAsciiPrefix(buf)) << "round " << round;
    ASSERT_EQ(isAsciiText(buf), slowAsciiPrefix(buf) == buf.size());
  }
  EXPECT_TRUE(isAsciiText(""));
  EXPECT_EQ(asciiPrefixLength("\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x80"), 8u);
}

}  // namespace
}  // namespace darius::base
