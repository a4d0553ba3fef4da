#include "lib/mime/content_fields.h"

#include <gtest/gtest.h>

namespace darius::mime {
namespace {

TEST(ContentType, TypeSubtypeParams) {
  auto ct = parseContentType("Text/HTML; Charset=\"UTF-8\" (comment); format=flowed");
  ASSERT_TRUE(ct.has_value());
  EXPECT_EQ(ct->type, "Text");
  EXPECT_EQ(ct->subtype, "HTML");
  ASSERT_EQ(ct->params.size(), 2u);
  EXPECT_EQ(ct->params[0].name, "Charset");
  EXPECT_EQ(ct->params[0].value, "UTF-8");
  EXPECT_EQ(findParam(ct->params, "FORMAT")->value, "flowed");
  EXPECT_EQ(imapParamName(ct->params[0]), "CHARSET");
}

TEST(ContentType, InvalidIsNullopt) {
  EXPECT_FALSE(parseContentType("text").has_value());
  EXPECT_FALSE(parseContentType("application-x-gzip; name=a").has_value());
  EXPECT_FALSE(parseContentType("text/").has_value());
  EXPECT_FALSE(parseContentType("").has_value());
  EXPECT_FALSE(parseContentType(";;;").has_value());
}

TEST(ContentType, LenientParameters) {
  auto ct = parseContentType("multipart/mixed\r\n\tboundary=\"b\"");  // missing ';'
  ASSERT_TRUE(ct.has_value());
  EXPECT_EQ(findParam(ct->params, "boundary")->value, "b");
  ct = parseContentType("multipart/alternative;; boundary=----=_Part_1.2");
  EXPECT_EQ(findParam(ct->params, "boundary")->value, "----=_Part_1.2");
  ct = parseContentType("application/pdf; name=My File.pdf; x=y");
  EXPECT_EQ(findParam(ct->params, "name")->value, "My");
  EXPECT_EQ(findParam(ct->params, "x")->value, "y");
  ct = parseContentType("text/plain; charset=a; charset=b; junk; =; empty=");
  ASSERT_EQ(ct->params.size(), 3u);
  EXPECT_EQ(findParam(ct->params, "charset")->value, "a");  // the first of duplicates
  EXPECT_EQ(ct->params[1].value, "b");
  EXPECT_EQ(ct->params[2].value, "");
}

TEST(Rfc2231, ContinuationsAndCharsets) {
  // RFC 2231 §4.1's example, sections out of order.
  auto params = parseParams(
      "; title*1*=%2A%2A%2Afun%2A%2A%2A%20; title*0*=us-ascii'en'This%20is%20even%20more%20;"
      " title*2=\"isn't it!\"");
  ASSERT_EQ(params.size(), 1u);
  const Param& p = params[0];
  EXPECT_TRUE(p.extended);
  EXPECT_EQ(p.charset, "us-ascii");
  EXPECT_EQ(p.language, "en");
  EXPECT_EQ(p.value, "This is even more ***fun*** isn't it!");
  EXPECT_EQ(imapParamName(p), "TITLE*");
  EXPECT_EQ(imapParamValue(p),
            "us-ascii'en'This%20is%20even%20more%20%2A%2A%2Afun%2A%2A%2A%20isn%27t%20it!");
  EXPECT_EQ(paramText(p), "This is even more ***fun*** isn't it!");
}

TEST(Rfc2231, ExtendedSingleAndPlainTwins) {
  auto params = parseParams("filename=\"plain.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt");
  ASSERT_EQ(params.size(), 2u);
  EXPECT_FALSE(params[0].extended);
  EXPECT_TRUE(params[1].extended);
  EXPECT_EQ(paramText(params[1]), "\xe2\x82\xac rates.txt");
  EXPECT_EQ(imapParamValue(params[1]), "UTF-8''%E2%82%AC%20rates.txt");
  // Unknown charset: the octets as they are (made valid UTF-8).
  params = parseParams("name*=x-nope''a%E9");
  EXPECT_EQ(paramText(params[0]), "a\xef\xbf\xbd");
  // Plain continuations without charset.
  params = parseParams("url*0=\"ftp://\"; url*1=\"example.org/x\"");
  ASSERT_EQ(params.size(), 1u);
  EXPECT_FALSE(params[0].extended);
  EXPECT_EQ(params[0].value, "ftp://example.org/x");
}

// BODYSTRUCTURE passes an extended value on as the message has it (RFC 2231 sections
// joined), not decoded and encoded again: Dovecot and Cyrus both send
// "UTF-8''%61%74%74..." for mime4j-mimetools-attachment-filename-encoding-UTF8. Only a plain
// section joined to extended ones is encoded, so that the joined value stays an RFC 2231
// value (Cyrus does that; Dovecot appends it raw), and a first section that is plain gets the
// empty charset and language "''" in front (both do).
TEST(Rfc2231, ExtendedValuesPassOnAsSent) {
  auto params = parseParams("filename*=UTF-8''%61%74%74%61%63%68%6D%65%6E%74%2E%C3%A4");
  EXPECT_EQ(imapParamValue(params[0]), "UTF-8''%61%74%74%61%63%68%6D%65%6E%74%2E%C3%A4");
  EXPECT_EQ(paramText(params[0]), "attachment.\xc3\xa4");
  params = parseParams("name*=\"utf-8''a%20b\"");
  EXPECT_EQ(imapParamValue(params[0]), "utf-8''a%20b");
  params = parseParams("name*=abc%20d");  // no charset'language' part: as it is
  EXPECT_EQ(imapParamValue(params[0]), "abc%20d");
  EXPECT_EQ(paramText(params[0]), "abc d");
  params = parseParams("name*0*=''a%20; name*1*=b%2");  // a broken escape stays as sent
  EXPECT_EQ(imapParamValue(params[0]), "''a%20b%2");
  params = parseParams("name*0=plain; name*1*=%41%42");
  EXPECT_EQ(imapParamValue(params[0]), "''plain%41%42");
  EXPECT_EQ(paramText(params[0]), "plainAB");
  params = parseParams("name*=utf-8''caf\xc3\xa9");  // 8-bit as sent (RFC 6532 mail)
  EXPECT_EQ(imapParamValue(params[0]), "utf-8''caf\xc3\xa9");
}

TEST(Rfc2231, EncodedWordsInPlainValues) {
  auto params = parseParams("name=\"=?koi8-r?B?89DJ08/LLmRvYw==?=\"");
  EXPECT_EQ(paramText(params[0]), "\xd0\xa1\xd0\xbf\xd0\xb8\xd1\x81\xd0\xbe\xd0\xba.doc");  // Список.doc
}

TEST(Rfc2231, HugeParameterListsStayLinear) {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "; p" + std::to_string(i) + "=v";
  EXPECT_EQ(parseParams(text).size(), 100000u);
  std::string sections;
  for (int i = 0; i < 50000; ++i) sections += "; t*" + std::to_string(i) + "=a";
  auto joined = parseParams(sections);
  ASSERT_EQ(joined.size(), 1u);
  EXPECT_EQ(joined[0].value.size(), 50000u);
}

TEST(Disposition, TypeAndParams) {
  auto d = parseDisposition("attachment; filename=\"a b.txt\"; size=12");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->type, "attachment");
  EXPECT_EQ(findParam(d->params, "filename")->value, "a b.txt");
  EXPECT_FALSE(parseDisposition("").has_value());
  EXPECT_FALSE(parseDisposition("; filename=x").has_value());
}

TEST(TransferEncoding, OneTokenWithCfwsOnly) {
  EXPECT_EQ(parseTransferEncoding(" (by mailer) BASE64 (again) "), "BASE64");
  EXPECT_EQ(parseTransferEncoding("7bit"), "7bit");
  EXPECT_FALSE(parseTransferEncoding("quoted-printable;"));
  EXPECT_FALSE(parseTransferEncoding("8 bit"));
  EXPECT_FALSE(parseTransferEncoding("text/html"));
  EXPECT_FALSE(parseTransferEncoding("(only a comment)"));
}

TEST(Language, List) {
  EXPECT_EQ(parseLanguageList("en-GB, fr (comment),,de"),
            (std::vector<std::string>{"en-GB", "fr", "de"}));
  EXPECT_TRUE(parseLanguageList(" , ").empty());
}

}  // namespace
}  // namespace darius::mime
