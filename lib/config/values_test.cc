#include "lib/config/values.h"

#include <gtest/gtest.h>

namespace darius::config {
namespace {

using std::chrono::milliseconds;

TEST(Values, BoolAcceptsAllSpellings) {
  for (const char* t : {"yes", "true", "on", "1", "YES", "True", "ON"}) {
    auto r = parseBool(t);
    ASSERT_TRUE(r.ok()) << t;
    EXPECT_TRUE(*r) << t;
  }
  for (const char* f : {"no", "false", "off", "0", "No", "FALSE"}) {
    auto r = parseBool(f);
    ASSERT_TRUE(r.ok()) << f;
    EXPECT_FALSE(*r) << f;
  }
  for (const char* bad : {"", "y", "n", "2", "yess", "enable", "-1"}) {
    auto r = parseBool(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), base::Code::kInvalid);
  }
}

TEST(Values, Int) {
  EXPECT_EQ(*parseInt("0", 0, 10), 0);
  EXPECT_EQ(*parseInt("-5", -10, 10), -5);
  EXPECT_EQ(*parseInt("9223372036854775807", INT64_MIN, INT64_MAX), INT64_MAX);
  EXPECT_EQ(parseInt("11", 0, 10).status().message(), "'11' is more than the maximum, 10");
  EXPECT_EQ(parseInt("-1", 0, 10).status().message(), "'-1' is less than the minimum, 0");
  EXPECT_EQ(parseInt("9223372036854775808", INT64_MIN, INT64_MAX).status().message(),
            "'9223372036854775808' is out of range");
  for (const char* bad : {"", "-", "+1", "1.5", "0x10", "1 2", "ten", "1e3"}) {
    EXPECT_FALSE(parseInt(bad, INT64_MIN, INT64_MAX).ok()) << bad;
  }
}

TEST(Values, Size) {
  EXPECT_EQ(*parseSize("0"), 0u);
  EXPECT_EQ(*parseSize("65536"), 65536u);
  EXPECT_EQ(*parseSize("64K"), 64u << 10);
  EXPECT_EQ(*parseSize("64k"), 64u << 10);
  EXPECT_EQ(*parseSize("64KB"), 64u << 10);
  EXPECT_EQ(*parseSize("10M"), 10u << 20);
  EXPECT_EQ(*parseSize("2G"), uint64_t{2} << 30);
  EXPECT_EQ(*parseSize("100B"), 100u);
  EXPECT_EQ(parseSize("12Q").status().message(),
            "'12Q' is not a size (examples: 65536, 64K, 10M)");
  for (const char* bad : {"", "K", "-1", "1.5M", "64 K", "64KK", "64KBB", "0x10", "1T"}) {
    EXPECT_FALSE(parseSize(bad).ok()) << bad;
  }
  EXPECT_EQ(*parseSize("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parseSize("18446744073709551616").status().message(),
            "'18446744073709551616' is too large");
  EXPECT_FALSE(parseSize("17179869184G").ok());  // 2^34 G = 2^64 bytes
}

TEST(Values, Duration) {
  EXPECT_EQ(*parseDuration("30"), milliseconds(30000));
  EXPECT_EQ(*parseDuration("30s"), milliseconds(30000));
  EXPECT_EQ(*parseDuration("250ms"), milliseconds(250));
  EXPECT_EQ(*parseDuration("5m"), milliseconds(300000));
  EXPECT_EQ(*parseDuration("2h"), milliseconds(7200000));
  EXPECT_EQ(*parseDuration("1d"), milliseconds(86400000));
  EXPECT_EQ(*parseDuration("0"), milliseconds(0));
  EXPECT_EQ(parseDuration("5x").status().message(),
            "'5x' is not a duration (examples: 250ms, 30s, 5m, 2h, 1d)");
  for (const char* bad : {"", "s", "-1s", "1.5s", "1h30m", "5 m", "5M", "5sec", "ms"}) {
    EXPECT_FALSE(parseDuration(bad).ok()) << bad;
  }
  EXPECT_FALSE(parseDuration("106751991167301d").ok());  // > int64 milliseconds
  EXPECT_FALSE(parseDuration("99999999999999999999999").ok());
}

TEST(Values, SplitWords) {
  EXPECT_EQ(splitWords(""), std::vector<std::string>{});
  EXPECT_EQ(splitWords("  a \t b  c "), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Values, ListenAddressForms) {
  auto a = parseListenAddress("*:143", "/");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->kind, ListenAddress::kTcp);
  EXPECT_EQ(a->host, "");
  EXPECT_EQ(a->port, 143);
  EXPECT_EQ(a->toString(), "*:143");

  a = parseListenAddress("127.0.0.1:24", "/");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 24);
  EXPECT_EQ(a->toString(), "127.0.0.1:24");

  a = parseListenAddress("[::1]:0", "/");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "::1");
  EXPECT_EQ(a->port, 0);
  EXPECT_EQ(a->toString(), "[::1]:0");

  a = parseListenAddress("[2001:db8::17]:65535", "/");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "2001:db8::17");
  EXPECT_EQ(a->port, 65535);

  a = parseListenAddress("[::]:993", "/");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "::");

  a = parseListenAddress("mail.example.org:143", "/");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "mail.example.org");

  a = parseListenAddress("unix:/run/darius/lmtp", "/");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->kind, ListenAddress::kUnix);
  EXPECT_EQ(a->path, "/run/darius/lmtp");
  EXPECT_EQ(a->toString(), "unix:/run/darius/lmtp");

  a = parseListenAddress("unix:sock/lmtp", "/srv/inst");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->path, "/srv/inst/sock/lmtp");
}

TEST(Values, ListenAddressRejects) {
  for (const char* bad :
       {"", "143", ":143", "*:", "*:65536", "*:-1", "*:1x", "*:999999", "::1:143", "[::1]143",
        "[::1]", "[::1:143", "[1.2.3.4]:143", "[zz::1]:143", "256.1.1.1:143", "1.2.3:143",
        "bad_host:143", "-a.example:143", "a..b:143", "a.example-:143", "unix:", "*:+1",
        "[]:1", "host:port"}) {
    auto r = parseListenAddress(bad, "/");
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), base::Code::kInvalid) << bad;
  }
  EXPECT_EQ(parseListenAddress("::1:143", "/").status().message(),
            "'::1:143': an IPv6 address needs brackets, as in [::1]:143");
  EXPECT_EQ(parseListenAddress("*:70000", "/").status().message(),
            "'*:70000' has a bad port '70000' (expected 0..65535)");
  std::string long_path = "unix:/" + std::string(200, 'a');
  EXPECT_FALSE(parseListenAddress(long_path, "/").ok());
}

TEST(Values, AddressList) {
  auto r = parseAddressList("*:143  [::]:143\tunix:/tmp/s", "/");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[1].host, "::");
  EXPECT_EQ((*r)[2].kind, ListenAddress::kUnix);
  auto empty = parseAddressList("", "/");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  EXPECT_FALSE(parseAddressList("*:143 *:99999", "/").ok());
}

TEST(Values, ResolvePath) {
  EXPECT_EQ(resolvePath("", "/etc"), "");
  EXPECT_EQ(resolvePath("/var/lib/darius/", "/etc"), "/var/lib/darius");
  EXPECT_EQ(resolvePath("data", "/srv/inst"), "/srv/inst/data");
  EXPECT_EQ(resolvePath("./data/../spool/", "/srv/inst"), "/srv/inst/spool");
  EXPECT_EQ(resolvePath("../shared", "/srv/inst"), "/srv/shared");
  EXPECT_EQ(resolvePath("/", "/srv"), "/");
}

TEST(Values, CleanText) {
  EXPECT_TRUE(isCleanText(""));
  EXPECT_TRUE(isCleanText("plain words\twith tab"));
  EXPECT_TRUE(isCleanText("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x93\xa7"));  // é € 📧
  EXPECT_FALSE(isCleanText(std::string_view("a\0b", 3)));
  EXPECT_FALSE(isCleanText("a\rb"));
  EXPECT_FALSE(isCleanText("a\x7f"));
  EXPECT_FALSE(isCleanText("\xc2\x85"));          // NEL, a C1 control
  EXPECT_FALSE(isCleanText("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(isCleanText("\xe0\x80\xaf"));      // overlong
  EXPECT_FALSE(isCleanText("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(isCleanText("\xf4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(isCleanText("\xe2\x82"));          // truncated
  EXPECT_FALSE(isCleanText("\x80"));
  EXPECT_FALSE(isCleanText("\xff"));
}

TEST(Values, QuoteForMessage) {
  EXPECT_EQ(quoteForMessage("abc"), "'abc'");
  EXPECT_EQ(quoteForMessage("a\nb'\\"), "'a\\x0ab\\x27\\x5c'");
  std::string big(1000, 'x');
  std::string q = quoteForMessage(big);
  EXPECT_LT(q.size(), 100u);
  EXPECT_NE(q.find("(1000 bytes)"), std::string::npos);
}

}  // namespace
}  // namespace darius::config
