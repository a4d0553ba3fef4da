// BINARY decoding: Content-Transfer-Encoding detection, base64 and quoted-printable as real
// mail writes them, exact decoded bytes, and the literal8 rule.
#include "imapd/fetch/fetch_binary.h"

#include <gtest/gtest.h>

#include <random>

namespace darius::imapd::fetch {
namespace {

TEST(FetchBinary, CteOfHeader) {
  EXPECT_EQ(cteOf("Subject: x\r\n\r\n"), Cte::kIdentity);
  EXPECT_EQ(cteOf(""), Cte::kIdentity);
  EXPECT_EQ(cteOf("Content-Transfer-Encoding: 7bit\r\n\r\n"), Cte::kIdentity);
  EXPECT_EQ(cteOf("content-transfer-encoding: 8BIT\r\n\r\n"), Cte::kIdentity);
  EXPECT_EQ(cteOf("Content-Transfer-Encoding: binary\r\n\r\n"), Cte::kIdentity);
  EXPECT_EQ(cteOf("Content-Transfer-Encoding:\r\n\r\n"), Cte::kIdentity);
  EXPECT_EQ(cteOf("Content-Transfer-Encoding: Base64\r\n\r\n"), Cte::kBase64);
  EXPECT_EQ(cteOf("Content-Transfer-Encoding: (by mailer)\r\n base64 (yes)\r\n\r\n"), Cte::kBase64);
  EXPECT_EQ(cteOf("Content-Transfer-Encoding: quoted-printable\r\n\r\n"), Cte::kQuotedPrintable);
  EXPECT_EQ(cteOf("Content-Transfer-Encoding: x-uuencode\r\n\r\n"), Cte::kUnknown);
  EXPECT_EQ(cteOf("Content-Transfer-Encoding: base-64\r\n\r\n"), Cte::kUnknown);
  // Not one token: no encoding, as BODYSTRUCTURE reports it (7BIT), so BINARY gives the
  // bytes as stored rather than decoding what the client was told is not encoded.
  EXPECT_EQ(cteOf("Content-Transfer-Encoding: quoted-printable;\r\n\r\n"), Cte::kIdentity);
  EXPECT_EQ(cteOf("Content-Transfer-Encoding: base64; x=y\r\n\r\n"), Cte::kIdentity);
  EXPECT_EQ(cteOf("Content-Transfer-Encoding: 8 bit\r\n\r\n"), Cte::kIdentity);
  // The first field counts.
  EXPECT_EQ(cteOf("Content-Transfer-Encoding: base64\r\nContent-Transfer-Encoding: 7bit\r\n\r\n"),
            Cte::kBase64);
}

TEST(FetchBinary, DecodeLeaf) {
  std::string b64 =
      "Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n";
  EXPECT_EQ(*decodeLeaf(b64, "YQpiAA==\r\n"), std::string("a\nb\0", 4));  // binary: LF kept
  std::string text = "Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n";
  EXPECT_EQ(*decodeLeaf(text, "YQpi\r\n"), "a\nb");  // the bytes encoded, never normalised
  // imaptest's fetch-binary-mime-base64 part 5: a bare CR, a CRLF and a bare LF, 30 bytes.
  auto mixed = decodeLeaf(text, "YWJjZGVmZw1oaWprbA0KbW5vCnBxcnN0dXZxeHl6\r\n");
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(*mixed, "abcdefg\rhijkl\r\nmno\npqrstuvqxyz");
  EXPECT_EQ(mixed->size(), 30u);
  EXPECT_EQ(*decodeLeaf("Content-Transfer-Encoding: 8bit\r\n\r\n", "caf\xc3\xa9\r\n"),
            "caf\xc3\xa9\r\n");
  auto unknown = decodeLeaf("Content-Transfer-Encoding: x-gzip\r\n\r\n", "xyz");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), base::Code::kNotSupported);
}

TEST(FetchBinary, Literal8OnlyForNul) {
  EXPECT_FALSE(needsLiteral8("caf\xc3\xa9\xff\r\n"));
  EXPECT_TRUE(needsLiteral8(std::string("a\0b", 3)));
  EXPECT_FALSE(needsLiteral8(""));
}

TEST(FetchBinary, RandomInputNeverBreaksTheHeaderChecks) {
  std::mt19937 rng(42);
  for (int round = 0; round < 2000; ++round) {
    std::string s(rng() % 300, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 256);
    (void)cteOf(s);
  }
}

}  // namespace
}  // namespace darius::imapd::fetch
