// What SEARCH reads out of a message: decoded header fields, transfer-decoded and
// charset-converted body parts, which parts BODY and TEXT look at, and the day of the Date
// header (sent_date.h).
#include "mailbox/search_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mailbox/sent_date.h"

namespace darius::mailbox {
namespace {

std::vector<std::string> texts(const std::string& raw, bool with_headers) {
  mime::Message m = mime::Message::parse(raw);
  std::vector<std::string> out;
  visitSearchTexts(m, with_headers, [&](std::string_view t) {
    out.emplace_back(t);
    return false;
  });
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "|";
  return out;
}

TEST(MessageText, TransferEncodings) {
  EXPECT_EQ(decodeTransferEncoding("aGVsbG8g\r\nd29ybGQ=\r\n", "base64"), "hello world");
  EXPECT_EQ(decodeTransferEncoding("aGVsbG8=", " BASE64 "), "hello");
  EXPECT_EQ(decodeTransferEncoding("a=3Db", "Quoted-Printable"), "a=b");
  EXPECT_EQ(decodeTransferEncoding("a=3Db", "7bit"), "a=3Db");
  EXPECT_EQ(decodeTransferEncoding("a=3Db", "x-uuencode"), "a=3Db");
  EXPECT_EQ(decodeTransferEncoding("a=3Db", ""), "a=3Db");
}

TEST(MessageText, AddressTextIsTheEnvelopesAddresses) {
  EXPECT_EQ(decodedAddressText(" <user-from (comment)@ (comment) domain.org>"),
            "user-from@domain.org");
  EXPECT_EQ(decodedAddressText(" =?ISO-8859-1?Q?Andr=E9?= <andre@example.com>,\r\n b@c (Bob)"),
            "André <andre@example.com>, Bob <b@c>");
  EXPECT_EQ(decodedAddressText(" team: one (1) @ a.org, two@b.org;, x@y"),
            "team: 1 <one@a.org>, two@b.org;, x@y");  // a bare addr-spec's comment names it
  EXPECT_EQ(decodedAddressText(" Mary Smith, root"), "Mary Smith, root");  // no placeholders
  EXPECT_EQ(decodedAddressText(" J\xf6rg <j@x>"), "Jörg <j@x>");  // undeclared 8-bit
  EXPECT_EQ(decodedAddressText(""), "");
}

TEST(MessageText, HeaderFieldsAreUnfoldedAndDecoded) {
  std::string block =
      "Subject: =?koi8-r?B?8NLJ18XU?= =?koi8-r?B?LCDNydI=?=\r\n"
      "From: =?ISO-8859-1?Q?Andr=E9?= <andre@example.com>\r\n"
      "To: a@example.com,\r\n\tb@example.com\r\n"
      "to: c@example.com\r\n\r\n";
  mime::Header h(block);
  EXPECT_EQ(decodedFieldValues(h, "SUBJECT"), std::vector<std::string>{"Привет, мир"});
  EXPECT_EQ(decodedFieldValues(h, "From"),
            std::vector<std::string>{"André <andre@example.com>"});
  EXPECT_EQ(decodedFieldValues(h, "To"),
            (std::vector<std::string>{"a@example.com,\tb@example.com", "c@example.com"}));
  EXPECT_TRUE(decodedFieldValues(h, "Cc").empty());
  // Undeclared 8-bit: UTF-8 stays, anything else is read as Windows-1252.
  EXPECT_EQ(decodeHeaderValue(" caf\xc3\xa9"), "café");
  EXPECT_EQ(decodeHeaderValue(" caf\xe9 \x80 =?utf-8?q?=C3=BCber?="), "café € über");
  std::string all = decodedHeaderText(h);
  EXPECT_NE(all.find("Subject: Привет, мир\r\n"), std::string::npos);
  EXPECT_NE(all.find("From: André"), std::string::npos);
}

TEST(MessageText, PartsAreConvertedToUtf8) {
  std::string latin1 =
      "Content-Type: text/plain; charset=iso-8859-1\r\n"
      "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
      "Voil=E0 le caf=E9\r\n";
  EXPECT_EQ(join(texts(latin1, false)), "Voilà le café\r\n|");

  std::string base64 =
      "Content-Type: text/plain; charset=utf-8\r\n"
      "Content-Transfer-Encoding: base64\r\n\r\n"
      "0J/RgNC40LLQtdGCLCDQvNC40YAh\r\n";
  EXPECT_EQ(join(texts(base64, false)), "Привет, мир!|");

  std::string koi8 =
      "Content-Type: text/plain; charset=\"KOI8-R\"\r\n\r\n"
      "\xf0\xd2\xc9\xd7\xc5\xd4\r\n";
  EXPECT_EQ(join(texts(koi8, false)), "Привет\r\n|");

  // No charset and 8-bit bytes: UTF-8 when valid, else Windows-1252.
  EXPECT_EQ(join(texts("Subject: x\r\n\r\nna\xc3\xafve\r\n", false)), "naïve\r\n|");
  EXPECT_EQ(join(texts("Subject: x\r\n\r\nna\xefve \x80\r\n", false)), "naïve €\r\n|");
  // Declared UTF-8 that is not: replacement characters, never a failure.
  std::string bad = "Content-Type: text/plain; charset=utf-8\r\n\r\nok \xff\r\n";
  EXPECT_EQ(join(texts(bad, false)), "ok \xef\xbf\xbd\r\n|");
  // An unknown charset keeps the valid UTF-8 and replaces the rest.
  std::string unknown = "Content-Type: text/plain; charset=x-martian\r\n\r\nhi \xe9\r\n";
  EXPECT_EQ(join(texts(unknown, false)), "hi \xef\xbf\xbd\r\n|");
}

TEST(MessageText, BodyAndTextVisitTheRightParts) {
  std::string raw =
      "From: top@example.com\r\n"
      "Subject: outer\r\n"
      "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n"
      "preamble\r\n"
      "--b\r\n"
      "Content-Type: text/plain\r\n\r\n"
      "first part\r\n"
      "--b\r\n"
      "Content-Type: image/png\r\n"
      "Content-Transfer-Encoding: base64\r\n\r\n"
      "aW1hZ2VieXRlcw==\r\n"
      "--b\r\n"
      "Content-Type: message/rfc822\r\n\r\n"
      "Subject: inner\r\n\r\n"
      "inner body\r\n"
      "--b--\r\n";
  std::vector<std::string> body = texts(raw, false);
  ASSERT_EQ(body.size(), 3u);
  EXPECT_EQ(body[0], "first part");
  EXPECT_EQ(body[1], "Subject: inner\r\n");
  EXPECT_EQ(body[2], "inner body");
  std::string b = join(body);
  EXPECT_EQ(b.find("imagebytes"), std::string::npos);  // not text: not decoded, not searched
  EXPECT_EQ(b.find("outer"), std::string::npos);       // BODY leaves the header out

  std::string text = join(texts(raw, true));
  EXPECT_NE(text.find("Subject: outer"), std::string::npos);
  EXPECT_NE(text.find("Content-Type: image/png"), std::string::npos);  // MIME headers count
  EXPECT_NE(text.find("inner body"), std::string::npos);
  EXPECT_EQ(text.find("imagebytes"), std::string::npos);
}

TEST(MessageText, VisitStopsAtTheFirstMatch) {
  std::string raw =
      "Content-Type: multipart/mixed; boundary=b\r\n\r\n"
      "--b\r\n\r\none\r\n--b\r\n\r\ntwo\r\n--b--\r\n";
  mime::Message m = mime::Message::parse(raw);
  int calls = 0;
  EXPECT_TRUE(visitSearchTexts(m, false, [&](std::string_view t) {
    ++calls;
    return t == "one";
  }));
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(visitSearchTexts(m, false, [](std::string_view) { return false; }));
}

TEST(SentDate, Rfc5322AndWhatMailersWrite) {
  using proto::CivilDate;
  const std::pair<const char*, CivilDate> cases[] = {
      {"Thu, 4 Jan 2024 10:00:00 +0100", {2024, 1, 4}},
      {"4 Jan 2024 10:00:00 +0100", {2024, 1, 4}},
      {" Fri, 21 Nov 1997 09:55:06 -0600", {1997, 11, 21}},
      {"Thu,4 jan 2024 23:59:59 -1200", {2024, 1, 4}},
      {"Thu, 04 JAN 2024 10:00 GMT", {2024, 1, 4}},
      {"Thu (a comment), 4 (x) Jan (y) 2024 10:00:00 +0000 (CET)", {2024, 1, 4}},
      {"Thu, 4 January 2024 10:00:00 +0100", {2024, 1, 4}},
      {"Tue, 1 Jul 03 10:52:37 +0200", {2003, 7, 1}},
      {"Tue, 1 Jul 97 10:52:37 +0200", {1997, 7, 1}},
      {"1 Jul 103 10:52:37 +0200", {2003, 7, 1}},
      {"Thu Jan  4 10:00:00 2024", {2024, 1, 4}},
      {"Thu, 4-Jan-2024 10:00:00 +0100", {2024, 1, 4}},
      {"29 Feb 2024 00:00 +0000", {2024, 2, 29}},
  };
  for (const auto& [in, want] : cases) {
    auto d = parseSentDate(in);
    ASSERT_TRUE(d.has_value()) << in;
    EXPECT_EQ(*d, want) << in;
  }
  for (const char* in : {"", "garbage", "Thu, 32 Jan 2024", "29 Feb 2023 10:00", "Jan",
                         "4 Jan", "4 Foo 2024", "99999 Jan 2024", "4 Jan 20245",
                         "((((((((((((((((((((((((((((((((((((((((("}) {
    EXPECT_FALSE(parseSentDate(in).has_value()) << in;
  }
}

}  // namespace
}  // namespace darius::mailbox
