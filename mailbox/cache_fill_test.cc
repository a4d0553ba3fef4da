#include "mailbox/cache_fill.h"

#include <gtest/gtest.h>

namespace darius::mailbox {
namespace {

const std::string kSimple =
    "Received: from mx.example.com by store; Sun, 22 Nov 2026 08:00:00 +0000\r\n"
    "DKIM-Signature: v=1; a=rsa-sha256; d=example.com; b=AAAA\r\n"
    "From: Alice <alice@example.com>\r\n"
    "To: bob@example.org\r\n"
    "Subject: Hello\r\n"
    "Date: Sun, 22 Nov 2026 08:00:00 +0000\r\n"
    "Message-ID: <1@example.com>\r\n"
    "\r\n"
    "Hi Bob,\r\n\r\n  how   are you?\r\n";

TEST(CacheFill, EnvelopeStructureAndHeadersWithoutTraceFields) {
  CacheEntry e = buildCacheEntry(kSimple);
  EXPECT_EQ(e.envelope,
            "(\"Sun, 22 Nov 2026 08:00:00 +0000\" \"Hello\" ((\"Alice\" NIL \"alice\" "
            "\"example.com\")) ((\"Alice\" NIL \"alice\" \"example.com\")) ((\"Alice\" NIL "
            "\"alice\" \"example.com\")) ((NIL NIL \"bob\" \"example.org\")) NIL NIL NIL "
            "\"<1@example.com>\")");
  EXPECT_EQ(e.body.rfind("(\"TEXT\" \"PLAIN\" (\"CHARSET\" \"US-ASCII\")", 0), 0u) << e.body;
  EXPECT_NE(e.bodystructure.size(), e.body.size());
  EXPECT_EQ(e.headers.find("Received:"), std::string::npos);
  EXPECT_EQ(e.headers.find("DKIM-Signature:"), std::string::npos);
  EXPECT_EQ(e.headers.rfind("From: Alice <alice@example.com>\r\n", 0), 0u);
  EXPECT_EQ(e.headers.substr(e.headers.size() - 5), ">\r\n\r\n");
  EXPECT_EQ(e.preview, "Hi Bob, how are you?");
  auto parts = decodeSections(e.sections);
  ASSERT_TRUE(parts.ok());
  ASSERT_EQ(parts->size(), 1u);
  EXPECT_EQ((*parts)[0].body_offset, kSimple.find("Hi Bob"));
  EXPECT_EQ((*parts)[0].body_size, kSimple.size() - kSimple.find("Hi Bob"));
}

TEST(CacheFill, SectionTableRoundTripAndDamage) {
  std::string m =
      "Content-Type: multipart/mixed; boundary=b\r\n\r\n"
      "--b\r\nContent-Type: text/plain\r\n\r\none\r\n"
      "--b\r\nContent-Type: message/rfc822\r\n\r\nSubject: inner\r\n\r\ntwo\r\n"
      "--b--\r\n";
  CacheEntry e = buildCacheEntry(m);
  auto parts = decodeSections(e.sections);
  ASSERT_TRUE(parts.ok());
  ASSERT_GE(parts->size(), 4u);  // root, text, message, its body
  EXPECT_EQ((*parts)[0].kind, 1);
  EXPECT_EQ((*parts)[1].parent, 0u);
  EXPECT_EQ(m.substr((*parts)[1].body_offset, (*parts)[1].body_size), "one");
  EXPECT_EQ(encodeSections(*parts), e.sections);
  EXPECT_FALSE(decodeSections(e.sections.substr(0, e.sections.size() - 1)).ok());
  std::string bad = e.sections;
  bad[4 + 40] = '\x7f';  // parent of part 0 -> out of range
  EXPECT_FALSE(decodeSections(bad).ok());
  EXPECT_FALSE(decodeSections("").ok());
}

TEST(CacheFill, PreviewDecodesAndPrefersPlainText) {
  std::string qp =
      "Content-Type: text/plain; charset=iso-8859-1\r\n"
      "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
      "Gr=FC=DFe aus M=FCnchen, sehr lange =\r\nZeile\r\n";
  EXPECT_EQ(previewText(qp), "Grüße aus München, sehr lange Zeile");
  std::string alt =
      "Content-Type: multipart/alternative; boundary=x\r\n\r\n"
      "--x\r\nContent-Type: text/html\r\n\r\n<p>html <b>version</b></p>\r\n"
      "--x\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n"
      "cGxhaW4gdmVyc2lvbg==\r\n--x--\r\n";
  EXPECT_EQ(previewText(alt), "plain version");
  std::string html = "Content-Type: text/html\r\n\r\n<html><body><p>Only&nbsp;HTML</p></body></html>\r\n";
  EXPECT_EQ(previewText(html), "Only\xc2\xa0HTML");  // the entity decoded (html_text.h)
  std::string attachment =
      "Content-Type: text/plain\r\nContent-Disposition: attachment; filename=a.txt\r\n\r\nx\r\n";
  EXPECT_EQ(previewText(attachment), "");
  std::string longer = "Subject: l\r\n\r\n" + std::string(150, 'a') + " " + std::string(100, 'b') + "\r\n";
  std::string p = previewText(longer);
  EXPECT_EQ(p.size(), 200u);
  std::string multibyte = "Content-Type: text/plain; charset=utf-8\r\n\r\n";
  for (int i = 0; i < 300; ++i) multibyte += "é";
  std::string pm = previewText(multibyte + "\r\n");
  EXPECT_EQ(pm.size(), 400u);  // 200 characters of 2 bytes, never a cut character
  EXPECT_EQ(previewText("no header at all"), "");
}

TEST(CacheFill, HostileInputNeverBreaksIt) {
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += "Content-Type: multipart/mixed; boundary=" + std::to_string(i) + "\r\n\r\n--" + std::to_string(i) + "\r\n";
  CacheEntry e = buildCacheEntry(deep);
  EXPECT_TRUE(decodeSections(e.sections).ok());
  CacheEntry empty = buildCacheEntry("");
  EXPECT_TRUE(decodeSections(empty.sections).ok());
  std::string nul("Subject: a\0b\r\n\r\nbody\0with nul\r\n", 30);
  EXPECT_FALSE(buildCacheEntry(nul).envelope.empty());
}

}  // namespace
}  // namespace darius::mailbox
