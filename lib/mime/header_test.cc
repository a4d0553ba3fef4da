#include "lib/mime/header.h"

#include <gtest/gtest.h>

#include "lib/mime/lexer.h"

namespace darius::mime {
namespace {

TEST(Header, SplitsFieldsWithExactRanges) {
  std::string block = "From: a@b\r\nSubject: one\r\n two\r\nX: y\r\n\r\n";
  std::vector<HeaderField> f = parseHeaderFields(block);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].name, "From");
  EXPECT_EQ(f[0].value, " a@b");
  EXPECT_EQ(block.substr(f[0].offset, f[0].size), "From: a@b\r\n");
  EXPECT_EQ(f[1].value, " one\r\n two");
  EXPECT_EQ(block.substr(f[1].offset, f[1].size), "Subject: one\r\n two\r\n");
  EXPECT_EQ(f[2].name, "X");
}

TEST(Header, JunkLinesAndObsoleteSyntax) {
  std::string block =
      "From sender Mon Jan  1 00:00:00 2024\r\n  orphan continuation\r\nSubject : spaced\r\n"
      "NoColon\r\n  continues the junk\r\nTo: x\r\n";
  std::vector<HeaderField> f = parseHeaderFields(block);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].name, "Subject");
  EXPECT_EQ(f[0].value, " spaced");
  EXPECT_EQ(f[1].name, "To");
  EXPECT_EQ(f[1].value, " x");  // no line end: the block ends there
}

TEST(Header, BareLfAndStopsAtBlankLine) {
  std::string block = "A: 1\nB: 2\n\nC: body\n";
  std::vector<HeaderField> f = parseHeaderFields(block);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].value, " 2");
  bool blank = false;
  EXPECT_EQ(findHeaderEnd(block, &blank), 11u);
  EXPECT_TRUE(blank);
  EXPECT_EQ(findHeaderEnd("A: 1\r\nB: 2", &blank), 10u);
  EXPECT_FALSE(blank);
  EXPECT_EQ(findHeaderEnd("\r\nbody", &blank), 2u);
  EXPECT_TRUE(blank);
}

TEST(Header, MaxBytesStopsNewFields) {
  std::string block = "A: 1\r\nB: 2\r\nC: 3\r\n";
  EXPECT_EQ(parseHeaderFields(block, 7).size(), 2u);  // B starts at 6 < 7, C at 12
  EXPECT_EQ(parseHeaderFields(block, 0).size(), 0u);
}

TEST(Header, UnfoldKeepsWhiteSpaceAndTrailingBlanks) {
  EXPECT_EQ(unfoldValue("  folded \r\n\tsubject "), "folded \tsubject ");
  EXPECT_EQ(unfoldValue(" a\n b"), "a b");
  EXPECT_EQ(unfoldValue(" a\r\nb"), "a\r\nb");  // not a fold: kept
  EXPECT_EQ(unfoldValue(std::string(" x\0y", 4)), std::string("x\0y", 3));
}

// Only the white space between the colon and the value on the field's first line is dropped:
// "Date: \r\n       <HR>" is "       <HR>" (RFC 5322 §2.2.3 removes the CRLF, nothing else),
// as Dovecot and Cyrus both send it (mikelmail-error_emails-bad_date_header).
TEST(Header, UnfoldKeepsTheWhiteSpaceOfAContinuationLine) {
  EXPECT_EQ(unfoldValue(" \r\n       <HR>"), "       <HR>");
  EXPECT_EQ(unfoldValue("\r\n\t x"), "\t x");
  EXPECT_EQ(unfoldValue("   \r\n   folded  "), "   folded  ");
  EXPECT_EQ(unfoldValue(" \r\n x\r\n y "), " x y ");
  EXPECT_EQ(unfoldValue(" \n x"), " x");
  EXPECT_EQ(unfoldValue(" \t "), "");
}

TEST(Header, LookupsAreCaseInsensitive) {
  Header h("subject: s1\r\nSUBJECT: s2\r\nfrom: f\r\n\r\n");
  ASSERT_NE(h.first("Subject"), nullptr);
  EXPECT_EQ(h.first("Subject")->value, " s1");
  EXPECT_EQ(h.last("Subject")->value, " s2");
  EXPECT_EQ(h.all("subject").size(), 2u);
  EXPECT_EQ(h.value("From"), "f");
  EXPECT_FALSE(h.value("To").has_value());
}

TEST(Header, FilterFieldsKeepsBlankLine) {
  std::string block = "From: a\r\nTo: b\r\n c\r\nSubject: s\r\n\r\n";
  EXPECT_EQ(filterHeaderFields(block, {"to", "SUBJECT"}, false), "To: b\r\n c\r\nSubject: s\r\n\r\n");
  EXPECT_EQ(filterHeaderFields(block, {"to"}, true), "From: a\r\nSubject: s\r\n\r\n");
  EXPECT_EQ(filterHeaderFields(block, {"x-none"}, false), "\r\n");
  // No blank line (a message that is all header): none is added.
  EXPECT_EQ(filterHeaderFields("From: a\r\nTo: b", {"to"}, false), "To: b");
}

TEST(Lexer, CommentsQuotesLiterals) {
  Lexer lx(" (a (nested) \\) c) \"q\\\"s\r\n t\" [1.2\r\n .3]");
  std::string comment;
  EXPECT_TRUE(lx.skipCfws(&comment));
  EXPECT_EQ(comment, "a (nested) ) c");
  EXPECT_EQ(lx.quotedString(), "q\"s t");
  lx.skipCfws();
  EXPECT_EQ(lx.domainLiteral(), "[1.2 .3]");
  EXPECT_TRUE(lx.atEnd());
  Lexer open("\"never closed");
  EXPECT_EQ(open.quotedString(), "never closed");
  std::string parens(100000, '(');
  Lexer deep(parens);
  EXPECT_TRUE(deep.skipCfws());
  EXPECT_TRUE(deep.atEnd());
}

TEST(Lexer, TokensAndAtoms) {
  Lexer lx("text/plain");
  EXPECT_EQ(lx.token(), "text");
  EXPECT_TRUE(lx.consume('/'));
  EXPECT_EQ(lx.token(), "plain");
  EXPECT_TRUE(isTokenChar('\xe9'));
  EXPECT_FALSE(isTokenChar('='));
  EXPECT_TRUE(isAtext('='));
  EXPECT_FALSE(isAtext('@'));
  EXPECT_TRUE(equalsNoCase("Content-Type", "content-TYPE"));
  EXPECT_EQ(trimFws(" \t a b \r\n"), "a b");
}

}  // namespace
}  // namespace darius::mime
