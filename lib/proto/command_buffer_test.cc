// Framing: literal headers at line ends (RFC 7888 §3) and the joined command text.
#include "lib/proto/command_buffer.h"

#include <gtest/gtest.h>

#include "lib/proto/arg_parser.h"

namespace darius::proto {
namespace {

// --- literal headers and framing ---

TEST(LiteralAtEnd, FindsSynchronizingAndNonSynchronizing) {
  auto a = literalAtEnd("a LOGIN {5}");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->size, 5u);
  EXPECT_TRUE(a->synchronizing);
  auto b = literalAtEnd("a LOGIN fred {11+}");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->size, 11u);
  EXPECT_FALSE(b->synchronizing);
  auto z = literalAtEnd("a X {0}");
  ASSERT_TRUE(z.has_value());
  EXPECT_EQ(z->size, 0u);
}

TEST(LiteralAtEnd, IgnoresWhatIsNotAHeader) {
  for (const char* line : {"a NOOP", "a X }", "a X {}", "a X {+}", "a X {5-}", "a X {x}",
                           "a X {5 }", "a X { 5}", "a X {5}x", "a X {-5}", "a X 5}", ""}) {
    EXPECT_FALSE(literalAtEnd(line).has_value()) << line;
  }
}

TEST(LiteralAtEnd, HugeSizesSaturate) {
  auto a = literalAtEnd("a X {99999999999999999999}");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->size, kLiteralSizeOverflow);
  EXPECT_TRUE(a->synchronizing);
  auto b = literalAtEnd("a X {99999999999999999999999999999999+}");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->size, kLiteralSizeOverflow);
  EXPECT_FALSE(b->synchronizing);
  // 2^63-1 is the largest number64; 2^63 is over it.
  EXPECT_EQ(literalAtEnd("a X {9223372036854775807}")->size, 9223372036854775807ull);
  EXPECT_EQ(literalAtEnd("a X {9223372036854775808}")->size, kLiteralSizeOverflow);
  // Leading zeros are digits like any other.
  EXPECT_EQ(literalAtEnd("a X {0000000000000000000000000005}")->size, 5u);
}

TEST(CommandBuffer, JoinsLinesAndLiterals) {
  CommandBuffer cmd;
  auto h = cmd.addLine("a LOGIN {4}");
  ASSERT_TRUE(h.has_value());
  cmd.addLiteral("fr\"d");
  EXPECT_FALSE(cmd.addLine(" secret").has_value());
  EXPECT_EQ(cmd.text(), "a LOGIN {4}\r\nfr\"d secret");
  EXPECT_EQ(cmd.literalBytes(), 4u);
  EXPECT_EQ(cmd.replyTag(), "a");
  cmd.clear();
  cmd.addLine("bad+tag NOOP");
  EXPECT_EQ(cmd.replyTag(), "*");
}

TEST(ParseLiteralHeader, InsideTheBraces) {
  EXPECT_EQ(parseLiteralHeader("12")->size, 12u);
  EXPECT_TRUE(parseLiteralHeader("12")->synchronizing);
  EXPECT_FALSE(parseLiteralHeader("12+")->synchronizing);
  for (const char* bad : {"", "+", "++", "1++", "+1", "1-", "-1", " 1", "1 ", "0x10", "1.5"}) {
    EXPECT_FALSE(parseLiteralHeader(bad).has_value()) << bad;
  }
  // Thousands of digits saturate, they do not wrap or take long.
  EXPECT_EQ(parseLiteralHeader(std::string(5000, '9'))->size, kLiteralSizeOverflow);
}

TEST(CommandBuffer, SeveralLiteralsInOneCommand) {
  CommandBuffer cmd;
  ASSERT_TRUE(cmd.addLine("t1 LOGIN {3+}").has_value());
  cmd.addLiteral("a b");
  auto second = cmd.addLine(" {2}");
  ASSERT_TRUE(second.has_value());
  EXPECT_TRUE(second->synchronizing);
  cmd.addLiteral("\r\n");
  EXPECT_FALSE(cmd.addLine("").has_value());
  EXPECT_EQ(cmd.literalBytes(), 5u);
  ArgParser p(cmd.text());
  ASSERT_TRUE(p.tag().ok());
  ASSERT_TRUE(p.space().isOk());
  ASSERT_TRUE(p.atom().ok());
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.astring(), "a b");
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.astring(), "\r\n");
  EXPECT_TRUE(p.end().isOk());
}

TEST(CommandBuffer, ReplyTagOfHostileFirstLines) {
  for (const char* line : {"", " ", "{5}", "\xff\xfe NOOP", "(a) NOOP", "*"}) {
    CommandBuffer cmd;
    (void)cmd.addLine(line);
    EXPECT_EQ(cmd.replyTag(), "*") << line;
  }
  CommandBuffer cmd;
  (void)cmd.addLine("abc{5}");  // the literal header is glued to the tag: not a valid tag
  EXPECT_EQ(cmd.replyTag(), "*");
}

}  // namespace
}  // namespace darius::proto
