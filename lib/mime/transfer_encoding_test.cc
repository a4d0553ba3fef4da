// Content-Transfer-Encoding decoders as real mail needs them (FETCH BINARY and SEARCH).
#include "lib/mime/transfer_encoding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace darius::mime {
namespace {

TEST(TransferEncoding, Base64) {
  EXPECT_EQ(decodeBase64Body("SGVsbG8sIHdvcmxkIQ=="), "Hello, world!");
  EXPECT_EQ(decodeBase64Body("SGVs\r\nbG8s\r\n IHdv cmxk\r\nIQ==\r\n"), "Hello, world!");
  EXPECT_EQ(decodeBase64Body("SGVsbG8*sIHdvcmxkIQ"), "Hello, world!");  // junk skipped
  EXPECT_EQ(decodeBase64Body("QQ==QkM="), "ABC");                       // two encodings glued together
  EXPECT_EQ(decodeBase64Body(""), "");
  EXPECT_EQ(decodeBase64Body("===="), "");
  EXPECT_EQ(decodeBase64Body(std::string("AAEC", 4)), std::string("\0\x01\x02", 3));
  // Round trip over every byte value.
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string encoded;
  for (size_t i = 0; i < all.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(all[i]) << 16;
    if (i + 1 < all.size()) v |= static_cast<uint8_t>(all[i + 1]) << 8;
    if (i + 2 < all.size()) v |= static_cast<uint8_t>(all[i + 2]);
    encoded += kAlphabet[(v >> 18) & 63];
    encoded += kAlphabet[(v >> 12) & 63];
    encoded += i + 1 < all.size() ? kAlphabet[(v >> 6) & 63] : '=';
    encoded += i + 2 < all.size() ? kAlphabet[v & 63] : '=';
    if (i % 57 == 54) encoded += "\r\n";
  }
  EXPECT_EQ(decodeBase64Body(encoded), all);
}

TEST(TransferEncoding, QuotedPrintable) {
  EXPECT_EQ(decodeQuotedPrintable("caf=C3=A9\r\n"), "caf\xc3\xa9\r\n");
  EXPECT_EQ(decodeQuotedPrintable("caf=c3=a9"), "caf\xc3\xa9");  // lower case, no line end
  EXPECT_EQ(decodeQuotedPrintable("long=\r\nline\r\n"), "longline\r\n");
  EXPECT_EQ(decodeQuotedPrintable("soft= \t\r\nbreak\r\n"), "softbreak\r\n");
  EXPECT_EQ(decodeQuotedPrintable("trailing   \r\nspace\t\r\n"), "trailing\r\nspace\r\n");
  EXPECT_EQ(decodeQuotedPrintable("a=20\r\n"), "a \r\n");
  EXPECT_EQ(decodeQuotedPrintable("1+1=2 =ZZ =4\r\n"), "1+1=2 =ZZ =4\r\n");
  EXPECT_EQ(decodeQuotedPrintable("bare\nlf\n"), "bare\r\nlf\r\n");
  EXPECT_EQ(decodeQuotedPrintable("=00=FF"), std::string("\0\xff", 2));
  EXPECT_EQ(decodeQuotedPrintable("="), "");
  EXPECT_EQ(decodeQuotedPrintable(""), "");
}

TEST(TransferEncoding, QuotedPrintableAsSearchSeesIt) {
  EXPECT_EQ(decodeQuotedPrintable("caf=E9 =3D ok"), "caf\xe9 = ok");
  EXPECT_EQ(decodeQuotedPrintable("soft=\r\nbreak"), "softbreak");
  EXPECT_EQ(decodeQuotedPrintable("soft=  \r\nbreak"), "softbreak");
  EXPECT_EQ(decodeQuotedPrintable("lf=\nonly"), "lfonly");
  EXPECT_EQ(decodeQuotedPrintable("lower=e9"), "lower\xe9");
  EXPECT_EQ(decodeQuotedPrintable("stray = sign=ZZ"), "stray = sign=ZZ");
  EXPECT_EQ(decodeQuotedPrintable("end="), "end");
  EXPECT_EQ(decodeQuotedPrintable("=4"), "=4");
}

TEST(TransferEncoding, RandomInputNeverBreaksTheDecoders) {
  std::mt19937 rng(42);
  for (int round = 0; round < 2000; ++round) {
    std::string s(rng() % 300, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 256);
    std::string b = decodeBase64Body(s);
    EXPECT_LE(b.size(), s.size());
    std::string q = decodeQuotedPrintable(s);
    EXPECT_LE(q.size(), s.size() * 2 + 2);  // only line ends can grow (LF -> CRLF)
  }
}

}  // namespace
}  // namespace darius::mime
