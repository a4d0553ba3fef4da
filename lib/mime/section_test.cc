#include "lib/mime/section.h"

#include <gtest/gtest.h>

#include "lib/mime/header.h"
#include "lib/mime/mime_test_util.h"

namespace darius::mime {
namespace {

// RFC 3501 §6.4.5's example message (the same shape as MimeKit's rfc2060 test message).
std::string exampleMessage() {
  return testing::canonicalCrlf(
      "Subject: top\nContent-Type: MULTIPART/MIXED; boundary=\"x\"\n\n"
      "--x\nContent-Type: TEXT/PLAIN\n\n1\n"
      "--x\nContent-Type: APPLICATION/OCTET-STREAM\n\n2\n"
      "--x\nContent-Type: MESSAGE/RFC822\n\nSubject: three\n"
      "Content-Type: MULTIPART/MIXED; boundary=\"3.x\"\n\n"
      "--3.x\nContent-Type: TEXT/PLAIN\n\n3.1\n--3.x\nContent-Type: APPLICATION/OCTET-STREAM\n\n3.2\n"
      "--3.x--\n"
      "--x\nContent-Type: MULTIPART/MIXED; boundary=\"4.x\"\n\n"
      "--4.x\nContent-Type: IMAGE/GIF\n\n4.1\n"
      "--4.x\nContent-Type: MESSAGE/RFC822\n\nSubject: four-two\n"
      "Content-Type: MULTIPART/MIXED; boundary=\"4.2.x\"\n\n"
      "--4.2.x\nContent-Type: TEXT/PLAIN\n\n4.2.1\n"
      "--4.2.x\nContent-Type: MULTIPART/ALTERNATIVE; boundary=\"4.2.2.x\"\n\n"
      "--4.2.2.x\nContent-Type: TEXT/PLAIN\n\n4.2.2.1\n"
      "--4.2.2.x\nContent-Type: TEXT/RICHTEXT\n\n4.2.2.2\n--4.2.2.x--\n--4.2.x--\n--4.x--\n--x--\n");
}

std::string fetch(const Message& m, std::string_view spec) {
  base::Result<SectionSpec> s = parseSectionSpec(spec);
  if (!s.ok()) return "<bad spec>";
  base::Result<ByteRange> r = locateSection(m, *s);
  if (!r.ok()) return "<" + std::string(base::codeName(r.status().code())) + ">";
  std::string bytes(m.data().substr(r->offset, r->size));
  if (s->text == SectionSpec::Text::kHeaderFields) return filterHeaderFields(bytes, s->fields, false);
  if (s->text == SectionSpec::Text::kHeaderFieldsNot) return filterHeaderFields(bytes, s->fields, true);
  return bytes;
}

TEST(Section, Rfc3501Example) {
  std::string data = exampleMessage();
  Message m = Message::parse(data);
  for (const char* leaf : {"1", "2", "3.1", "3.2", "4.1", "4.2.1", "4.2.2.1", "4.2.2.2"}) {
    EXPECT_EQ(fetch(m, leaf), leaf) << leaf;
  }
  EXPECT_EQ(fetch(m, "3.HEADER").substr(0, 15), "Subject: three\r");
  EXPECT_EQ(fetch(m, "4.2.HEADER.FIELDS (subject)"), "Subject: four-two\r\n\r\n");
  EXPECT_EQ(fetch(m, "4.1.MIME"), "Content-Type: IMAGE/GIF\r\n\r\n");
  EXPECT_EQ(fetch(m, "4.2.2.2.MIME"), "Content-Type: TEXT/RICHTEXT\r\n\r\n");
  EXPECT_EQ(fetch(m, "3.TEXT").substr(0, 7), "--3.x\r\n");
  EXPECT_EQ(fetch(m, "HEADER.FIELDS (SUBJECT)"), "Subject: top\r\n\r\n");
  EXPECT_EQ(fetch(m, "HEADER.FIELDS.NOT (Subject)").substr(0, 13), "Content-Type:");
  EXPECT_EQ(fetch(m, ""), data);
  EXPECT_EQ(fetch(m, "TEXT").substr(0, 5), "--x\r\n");
  std::string four = fetch(m, "4");  // a multipart part: its whole body, delimiters included
  EXPECT_EQ(four.substr(0, 7), "--4.x\r\n");
  EXPECT_EQ(four.substr(four.size() - 7), "--4.x--");
}

TEST(Section, Errors) {
  Message m = Message::parse(exampleMessage());
  EXPECT_EQ(fetch(m, "5"), "<not_found>");
  EXPECT_EQ(fetch(m, "1.1"), "<not_found>");
  EXPECT_EQ(fetch(m, "4.3"), "<not_found>");
  EXPECT_EQ(fetch(m, "1.HEADER"), "<invalid>");
  EXPECT_EQ(fetch(m, "0"), "<bad spec>");
  EXPECT_EQ(fetch(m, "1."), "<bad spec>");
  EXPECT_EQ(fetch(m, "MIME"), "<bad spec>");
  EXPECT_EQ(fetch(m, "1.FOO"), "<bad spec>");
  EXPECT_EQ(fetch(m, "HEADER.FIELDS ()"), "<bad spec>");
  EXPECT_EQ(fetch(m, "HEADER.FIELDS (a"), "<bad spec>");
  EXPECT_EQ(fetch(m, "99999999999999999999"), "<bad spec>");
}

TEST(Section, NonMultipartMessageHasPartOne) {
  std::string data = "Subject: s\r\n\r\nbody\r\n";
  Message m = Message::parse(data);
  EXPECT_EQ(fetch(m, "1"), "body\r\n");
  EXPECT_EQ(fetch(m, "1.MIME"), "Subject: s\r\n\r\n");
  EXPECT_EQ(fetch(m, "2"), "<not_found>");
  EXPECT_EQ(partNumber(m, 0), "1");
}

TEST(Section, MessageRfc822AtTopAndInsideNonMultipart) {
  std::string data =
      "Content-Type: message/rfc822\r\n\r\nSubject: inner\r\n\r\ninner body\r\n";
  Message m = Message::parse(data);
  EXPECT_EQ(fetch(m, "1"), "Subject: inner\r\n\r\ninner body\r\n");
  EXPECT_EQ(fetch(m, "1.HEADER"), "Subject: inner\r\n\r\n");
  EXPECT_EQ(fetch(m, "1.TEXT"), "inner body\r\n");
  EXPECT_EQ(fetch(m, "1.1"), "inner body\r\n");
  EXPECT_EQ(partNumber(m, 1), "1.1");
}

TEST(Section, PartNumbersRoundTrip) {
  Message m = Message::parse(exampleMessage());
  EXPECT_EQ(testing::checkInvariants(m), "");
  std::vector<std::string> numbers;
  for (uint32_t k = 0; k < m.parts().size(); ++k) numbers.push_back(partNumber(m, k).value_or("-"));
  EXPECT_EQ(numbers, (std::vector<std::string>{"-", "1", "2", "3", "-", "3.1", "3.2", "4", "4.1",
                                               "4.2", "-", "4.2.1", "4.2.2", "4.2.2.1",
                                               "4.2.2.2"}));
}

TEST(Section, SpecParsing) {
  base::Result<SectionSpec> s = parseSectionSpec("1.22.HEADER.FIELDS.NOT (From \"X-Spam Score\" To)");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->path, (std::vector<uint32_t>{1, 22}));
  EXPECT_EQ(s->text, SectionSpec::Text::kHeaderFieldsNot);
  EXPECT_EQ(s->fields, (std::vector<std::string>{"From", "X-Spam Score", "To"}));
  EXPECT_EQ(parseSectionSpec("text")->text, SectionSpec::Text::kText);
  EXPECT_TRUE(parseSectionSpec("")->path.empty());
}

}  // namespace
}  // namespace darius::mime
