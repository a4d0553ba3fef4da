#include "lib/net/line_reader.h"

#include <gtest/gtest.h>

namespace darius::net {
namespace {

std::optional<std::string> line(LineReader& r) {
  auto res = r.takeLine();
  EXPECT_TRUE(res.ok()) << res.status().toString();
  return res.ok() ? *res : std::nullopt;
}

TEST(LineReader, SplitsCrlfAndBareLf) {
  LineReader r({});
  r.feed("a1 NOOP\r\na2 CAPABILITY\nrest");
  EXPECT_EQ(line(r), "a1 NOOP");
  EXPECT_EQ(line(r), "a2 CAPABILITY");
  EXPECT_EQ(line(r), std::nullopt);
  r.feed("\r");
  EXPECT_EQ(line(r), std::nullopt);
  r.feed("\n");
  EXPECT_EQ(line(r), "rest");
  EXPECT_EQ(r.buffered(), 0u);
}

TEST(LineReader, ByteAtATime) {
  LineReader r({});
  std::string in = "x LOGIN a b\r\ny LOGOUT\r\n";
  std::vector<std::string> got;
  for (char c : in) {
    r.feed(std::string_view(&c, 1));
    while (auto l = line(r)) got.push_back(*l);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"x LOGIN a b", "y LOGOUT"}));
}

TEST(LineReader, OverlongLineIsReportedOnceThenSkipped) {
  LineReader r({.max_line = 10, .max_literal = 100});
  r.feed(std::string(8, 'a'));
  EXPECT_EQ(line(r), std::nullopt);
  r.feed(std::string(50, 'b'));
  auto res = r.takeLine();
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), base::Code::kTooBig);
  EXPECT_EQ(r.overlongHead(), std::string(8, 'a') + std::string(50, 'b'));
  // Buffer was dropped: memory stays bounded while the rest streams in.
  EXPECT_EQ(r.buffered(), 0u);
  r.feed(std::string(1000, 'c'));
  EXPECT_EQ(line(r), std::nullopt);
  EXPECT_EQ(r.buffered(), 0u);
  r.feed("ccc\r\nok\r\n");
  EXPECT_EQ(line(r), "ok");
}

TEST(LineReader, OverlongCompleteLine) {
  LineReader r({.max_line = 4, .max_literal = 100});
  r.feed("123456\r\nab\r\n");
  EXPECT_FALSE(r.takeLine().ok());
  EXPECT_EQ(r.overlongHead(), "123456");
  EXPECT_EQ(line(r), "ab");
}

TEST(LineReader, ExactLimitIsAccepted) {
  LineReader r({.max_line = 4, .max_literal = 100});
  r.feed("1234");
  EXPECT_EQ(line(r), std::nullopt);
  r.feed("\r");
  EXPECT_EQ(line(r), std::nullopt);
  r.feed("\n");
  EXPECT_EQ(line(r), "1234");
}

TEST(LineReader, Literals) {
  LineReader r({.max_line = 100, .max_literal = 8});
  r.feed("A APPEND x {5}\r\nhel");
  EXPECT_EQ(line(r), "A APPEND x {5}");
  auto b = r.takeBytes(5);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, std::nullopt);
  r.feed("lo\r\n");
  b = r.takeBytes(5);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(**b, "hello");
  EXPECT_EQ(line(r), "");
  auto big = r.takeBytes(9);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), base::Code::kTooBig);
}

TEST(LineReader, LiteralMayContainNulAndNewlines) {
  LineReader r({});
  std::string data("a\0\nb\r\n", 6);
  r.feed(data);
  auto b = r.takeBytes(6);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(**b, data);
}

TEST(LineReader, ClearDropsPipelinedBytes) {
  LineReader r({});
  r.feed("a STARTTLS\r\nb LOGIN x y\r\n");
  EXPECT_EQ(line(r), "a STARTTLS");
  EXPECT_GT(r.buffered(), 0u);
  r.clear();
  EXPECT_EQ(r.buffered(), 0u);
}

}  // namespace
}  // namespace darius::net
