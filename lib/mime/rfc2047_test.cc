#include "lib/mime/rfc2047.h"

#include <gtest/gtest.h>

#include "lib/mime/charset.h"

namespace darius::mime {
namespace {

TEST(Charset, ConvertsThroughIcu) {
  EXPECT_EQ(convertToUtf8("caf\xe9", "ISO-8859-1"), "caf\xc3\xa9");
  EXPECT_EQ(convertToUtf8("\xf0\xd2\xc9\xd7\xc5\xd4", "koi8-r"),
            "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82");  // Привет
  EXPECT_EQ(convertToUtf8("\x1b$B$3$s\x1b(B", "ISO-2022-JP"), "\xe3\x81\x93\xe3\x82\x93");  // こん
  EXPECT_EQ(convertToUtf8("", "utf-8"), "");
  EXPECT_FALSE(convertToUtf8("x", "x-no-such-charset").has_value());
  EXPECT_FALSE(convertToUtf8("x", "").has_value());  // not "the platform default"
  EXPECT_FALSE(convertToUtf8("x", "utf 8").has_value());
  EXPECT_TRUE(isKnownCharset("windows-1252"));
  EXPECT_FALSE(isKnownCharset("unknown-8bit"));
  // Invalid bytes in a known charset become U+FFFD rather than failing.
  std::optional<std::string> bad = convertToUtf8("a\xff", "utf-8");
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(*bad, "a\xef\xbf\xbd");
}

TEST(Rfc2047, DecodesBAndQ) {
  EXPECT_EQ(decodeHeaderText("=?ISO-8859-1?Q?Keld_J=F8rn_Simonsen?="), "Keld J\xc3\xb8rn Simonsen");
  EXPECT_EQ(decodeHeaderText("=?utf-8?B?0J/RgNC40LLQtdGC?="), "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82");
  EXPECT_EQ(decodeHeaderText("=?utf-8*en?q?caf=C3=A9?="), "caf\xc3\xa9");  // RFC 2231 §5
}

TEST(Rfc2047, WhiteSpaceBetweenWordsGoes) {
  // RFC 2047 §8 examples.
  EXPECT_EQ(decodeHeaderText("(=?ISO-8859-1?Q?a?= b)"), "(a b)");
  EXPECT_EQ(decodeHeaderText("=?ISO-8859-1?Q?a?= =?ISO-8859-1?Q?b?="), "ab");
  EXPECT_EQ(decodeHeaderText("=?ISO-8859-1?Q?a?=\r\n  =?ISO-8859-1?Q?b?="), "ab");
  EXPECT_EQ(decodeHeaderText("=?ISO-8859-1?Q?a_b?="), "a b");
  EXPECT_EQ(decodeHeaderText("=?ISO-8859-1?Q?a?= x =?ISO-8859-1?Q?b?="), "a x b");
}

TEST(Rfc2047, SplitMultibyteCharacterAcrossWords) {
  // "é" (C3 A9) split between two B words of the same charset.
  EXPECT_EQ(decodeHeaderText("=?utf-8?B?w6=?= =?utf-8?B?qQ==?="), "\xc3\xa9");
  EXPECT_EQ(decodeHeaderText("=?utf-8?Q?caf=C3?= =?utf-8?Q?=A9?="), "caf\xc3\xa9");
}

TEST(Rfc2047, UnknownCharsetAndBrokenWordsStay) {
  EXPECT_EQ(decodeHeaderText("=?x-unknown?q?raw?= and =?utf-8?q?ok?="), "=?x-unknown?q?raw?= and ok");
  EXPECT_EQ(decodeHeaderText("=?utf-8?q?ok?= =?x-unknown?q?raw?="), "ok =?x-unknown?q?raw?=");
  EXPECT_EQ(decodeHeaderText("=?utf-8?x?bad-encoding?="), "=?utf-8?x?bad-encoding?=");
  EXPECT_EQ(decodeHeaderText("=?utf-8?q?unterminated"), "=?utf-8?q?unterminated");
  EXPECT_EQ(decodeHeaderText("=?utf-8?q?has space?="), "=?utf-8?q?has space?=");
  EXPECT_EQ(decodeHeaderText("=??q?x?="), "=??q?x?=");
  EXPECT_EQ(decodeHeaderText("glued=?utf-8?q?word?=text"), "gluedwordtext");
}

TEST(Rfc2047, RawBytesBecomeValidUtf8) {
  EXPECT_EQ(decodeHeaderText("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(decodeHeaderText("caf\xe9!"), "caf\xef\xbf\xbd!");
  EXPECT_EQ(sanitizeUtf8("\xc3"), "\xef\xbf\xbd");
}

TEST(Rfc2047, LenientTransforms) {
  EXPECT_EQ(decodeBase64Lenient("aGVsbG8"), "hello");     // missing padding
  EXPECT_EQ(decodeBase64Lenient("aGV s*bG8="), "hello");  // junk ignored
  EXPECT_EQ(decodeQEncoding("a=3Db=ZZ=4"), "a=b=ZZ=4");
}

TEST(Rfc2047, HostileInputTerminates) {
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "=?utf-8?q?a?= ";
  EXPECT_EQ(decodeHeaderText(many), std::string(20000, 'a') + " ");  // the last space stays
  std::string opens(100000, '=');
  for (size_t i = 1; i < opens.size(); i += 2) opens[i] = '?';
  EXPECT_EQ(decodeHeaderText(opens), opens);
}

}  // namespace
}  // namespace darius::mime
