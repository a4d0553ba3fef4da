// The lexer: tokens, strings, literals, numbers and mailbox names (RFC 9051 §9).
#include "lib/proto/arg_parser.h"

#include <gtest/gtest.h>

namespace darius::proto {
namespace {

using base::Code;

// --- the lexer ---

TEST(ArgParser, TagAndCommand) {
  ArgParser p("A001 login fred secret");
  EXPECT_EQ(*p.tag(), "A001");
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.atom(), "login");
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.astring(), "fred");
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.astring(), "secret");
  EXPECT_TRUE(p.end().isOk());
}

TEST(ArgParser, TagsAllowBracketButNotPlusOrSpecials) {
  EXPECT_EQ(*ArgParser("a]b NOOP").tag(), "a]b");
  for (const char* bad : {"a+b NOOP", "+ NOOP", "a(b NOOP", "a{1} NOOP", "a*b NOOP", "a%b NOOP",
                          "a\"b NOOP", "a\\b NOOP", " NOOP", "a\x01 NOOP", "a\xc3\xa9 NOOP"}) {
    auto t = ArgParser(bad).tag();
    EXPECT_FALSE(t.ok()) << bad;
  }
  auto empty = ArgParser("").tag();
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "Empty command line");
}

TEST(ArgParser, SpaceIsExactlyOne) {
  ArgParser p("a  NOOP");
  ASSERT_TRUE(p.tag().ok());
  ASSERT_TRUE(p.space().isOk());
  auto a = p.atom();
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("Unexpected SP"), std::string::npos);
  ArgParser q("a");
  ASSERT_TRUE(q.tag().ok());
  EXPECT_EQ(q.space().message(), "Missing argument");
}

TEST(ArgParser, QuotedStringsWithEscapes) {
  ArgParser p(R"("fr\"ed" "back\\slash" "")");
  EXPECT_EQ(*p.astring(), "fr\"ed");
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.string(), "back\\slash");
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.quoted(), "");
  EXPECT_TRUE(p.atEnd());
}

TEST(ArgParser, MalformedQuotedStrings) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"\"unbalanced", "Unterminated quoted string"},
      {"\"ends with backslash\\", "Invalid escape in quoted string"},
      {"\"bad \\n escape\"", "Invalid escape in quoted string"},
      {"\"line\r\nbreak\"", "Unterminated quoted string"},
      {"\"bad \xff utf8\"", "Invalid UTF-8 in quoted string"},
      {"\"overlong \xc0\xaf\"", "Invalid UTF-8 in quoted string"},
      {"\"surrogate \xed\xa0\x80\"", "Invalid UTF-8 in quoted string"},
      {"\"truncated \xe2\x82\"", "Invalid UTF-8 in quoted string"},
  };
  for (const Case& c : cases) {
    ArgParser p(c.text);
    auto s = p.quoted();
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().message(), c.message) << c.text;
    EXPECT_EQ(p.position(), 0u) << "a failed element must not consume";
  }
  std::string nul("\"a\0b\"", 5);
  auto n = ArgParser(nul).quoted();
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().message(), "NUL byte in quoted string");
}

TEST(ArgParser, QuotedStringsAcceptUtf8) {
  EXPECT_EQ(*ArgParser("\"J\xc3\xb6rg \xe2\x82\xac \xf0\x9f\x93\xa7\"").quoted(),
            "J\xc3\xb6rg \xe2\x82\xac \xf0\x9f\x93\xa7");
}

TEST(ArgParser, Literals) {
  ArgParser p("{5}\r\nab\"\\c {0+}\r\n rest");
  EXPECT_EQ(*p.astring(), "ab\"\\c");
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.string(), "");
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.atom(), "rest");
  // Literals may hold CR, LF and 8-bit bytes, but not NUL (CHAR8 is %x01-ff).
  EXPECT_EQ(*ArgParser("{4}\r\n\r\n\xff\x01").literal(), "\r\n\xff\x01");
  std::string nul("{3}\r\na\0b", 8);
  auto n = ArgParser(nul).literal();
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().message(), "NUL byte in literal");
}

TEST(ArgParser, Literal8TakesEveryOctet) {
  // RFC 3516 §4.4: APPEND's literal8 carries binary content, NUL included.
  std::string text("~{5+}\r\na\0b\r\n rest", 17);
  ArgParser p(text);
  auto bytes = p.literal8();
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  EXPECT_EQ(*bytes, std::string("a\0b\r\n", 5));
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.atom(), "rest");
  // A plain literal is not a literal8, and a literal8 needs its "~".
  ArgParser plain("{1}\r\nx");
  EXPECT_FALSE(plain.literal8().ok());
  EXPECT_EQ(plain.position(), 0u);
  // A truncated literal8 fails and leaves the position where it was.
  ArgParser cut("~{9}\r\nab");
  EXPECT_FALSE(cut.literal8().ok());
  EXPECT_EQ(cut.position(), 0u);
}

TEST(ArgParser, BadLiteralSyntax) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"{5} abcde", "Literal header must end the line"},
      {"{5}", "Literal header must end the line"},
      {"{5-}\r\nabcde", "Invalid literal header"},
      {"{}\r\n", "Invalid literal header"},
      {"{x}\r\n", "Invalid literal header"},
      {"{5", "Invalid literal header"},
      {"{5}\r\nabc", "Truncated literal"},
  };
  for (const Case& c : cases) {
    auto s = ArgParser(c.text).string();
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().message(), c.message) << c.text;
  }
  auto huge = ArgParser("{99999999999999999999}\r\n").literal();
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), Code::kTooBig);
}

TEST(ArgParser, AtomsRejectSpecialsEightBitAndNul) {
  EXPECT_EQ(*ArgParser("AUTH=PLAIN").atom(), "AUTH=PLAIN");
  EXPECT_EQ(*ArgParser("NOOP)").atom(), "NOOP");
  auto eight = ArgParser("CAP\xc3\xa9").atom();
  ASSERT_FALSE(eight.ok());
  EXPECT_EQ(eight.status().message(), "8-bit character in atom");
  auto lead = ArgParser("\xc3\xa9").atom();
  ASSERT_FALSE(lead.ok());
  EXPECT_EQ(lead.status().message(), "8-bit character where an atom was expected");
  std::string nul("NO\0OP", 5);
  auto n = ArgParser(nul).atom();
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().message(), "NUL byte in atom");
  auto ctl = ArgParser("NO\x7fOP").atom();
  ASSERT_FALSE(ctl.ok());
  EXPECT_EQ(ctl.status().message(), "Control character in atom");
  EXPECT_FALSE(ArgParser("(").atom().ok());
  EXPECT_FALSE(ArgParser("").atom().ok());
}

TEST(ArgParser, AstringAllowsBracketButAtomDoesNot) {
  EXPECT_EQ(*ArgParser("a]b").astring(), "a]b");
  EXPECT_EQ(*ArgParser("a]b").atom(), "a");
}

TEST(ArgParser, NstringAndNil) {
  ArgParser p("NIL nil \"x\" NILS");
  EXPECT_FALSE(p.nstring()->has_value());
  ASSERT_TRUE(p.space().isOk());
  EXPECT_FALSE(p.nstring()->has_value());
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(**p.nstring(), "x");
  ASSERT_TRUE(p.space().isOk());
  EXPECT_FALSE(p.nstring().ok()) << "NILS is an atom, not NIL";
}

TEST(ArgParser, Base64Tokens) {
  ArgParser p("AGZyZWQAc2VjcmV0 =");
  EXPECT_EQ(*p.base64Token(), "AGZyZWQAc2VjcmV0");
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.base64Token(), "=");
  EXPECT_FALSE(ArgParser("abc!").base64Token().ok());
  EXPECT_FALSE(ArgParser("").base64Token().ok());
}

TEST(ArgParser, EndReportsExtraArguments) {
  ArgParser p("NOOP extra");
  ASSERT_TRUE(p.atom().ok());
  EXPECT_EQ(p.end().message(), "Unexpected extra arguments");
}

TEST(ArgParser, MailboxNormalisesInboxInAnyCase) {
  for (const char* in : {"INBOX", "inbox", "iNbOx", "\"InBoX\"", "{5}\r\ninBOX"}) {
    ArgParser p(in);
    auto m = p.mailbox();
    ASSERT_TRUE(m.ok()) << in;
    EXPECT_EQ(*m, "INBOX") << in;
    EXPECT_TRUE(p.atEnd()) << in;
  }
  // Only the whole name is INBOX; anything else is returned as sent.
  for (const char* name : {"INBOX/Sent", "inbox.drafts", "INBOXES", "Inbo", "xinbox"}) {
    EXPECT_EQ(*ArgParser(name).mailbox(), name);
  }
  EXPECT_EQ(*ArgParser("\"&ZeVnLIqe-\"").mailbox(), "&ZeVnLIqe-");
  EXPECT_EQ(*ArgParser("\"J\xc3\xb6rg\"").mailbox(), "J\xc3\xb6rg");
  ArgParser bad("(INBOX)");
  EXPECT_FALSE(bad.mailbox().ok());
  EXPECT_EQ(bad.position(), 0u);
  EXPECT_FALSE(ArgParser("").mailbox().ok());
}

TEST(ArgParser, NumbersStopAtTheFirstNonDigit) {
  ArgParser p("0.100> 4294967295 4294967296 0 07 9223372036854775807 9223372036854775808");
  EXPECT_EQ(*p.number(), 0u);
  EXPECT_TRUE(p.skipIf('.'));
  EXPECT_EQ(*p.nzNumber(), 100u);
  EXPECT_TRUE(p.skipIf('>'));
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.number(), 4294967295u);
  ASSERT_TRUE(p.space().isOk());
  size_t before = p.position();
  auto over = p.number();
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), Code::kInvalid);
  EXPECT_EQ(p.position(), before);
  EXPECT_EQ(*p.number64(), 4294967296u);
  ASSERT_TRUE(p.space().isOk());
  EXPECT_FALSE(p.nzNumber().ok());
  EXPECT_EQ(*p.number(), 0u);
  ASSERT_TRUE(p.space().isOk());
  EXPECT_FALSE(p.nzNumber().ok()) << "digit-nz: no leading zero";
  EXPECT_EQ(*p.number(), 7u);
  ASSERT_TRUE(p.space().isOk());
  EXPECT_EQ(*p.nzNumber64(), 9223372036854775807u);
  ASSERT_TRUE(p.space().isOk());
  EXPECT_FALSE(p.number64().ok());
  EXPECT_FALSE(ArgParser("").number().ok());
  EXPECT_FALSE(ArgParser("-1").number().ok());
  EXPECT_FALSE(ArgParser("+1").number().ok());
  EXPECT_FALSE(ArgParser(" 1").number().ok());
}

TEST(ArgParser, RestAdvanceAndRewind) {
  ArgParser p("BODY[TEXT]<0.10>");
  EXPECT_EQ(p.rest().substr(0, 4), "BODY");
  p.advance(4);
  EXPECT_TRUE(p.peek('['));
  size_t mark = p.position();
  p.advance(100);  // clamped to the end
  EXPECT_TRUE(p.atEnd());
  p.rewind(mark);
  EXPECT_EQ(p.position(), mark);
  p.rewind(1000);  // never forwards
  EXPECT_EQ(p.position(), mark);
}

TEST(QuoteString, QuotesOrFallsBackToLiteral) {
  EXPECT_EQ(quoteString("Darius"), "\"Darius\"");
  EXPECT_EQ(quoteString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(quoteString("a\r\nb"), "{4}\r\na\r\nb");
  EXPECT_EQ(quoteString("\xc3\xa9"), "{2}\r\n\xc3\xa9");
}

TEST(CharClasses, FollowRfc9051) {
  for (int c = 0; c < 256; ++c) {
    auto u = static_cast<unsigned char>(c);
    bool special =
        c <= 0x20 || c >= 0x7f ||
        std::string_view("(){%*\"\\]").find(static_cast<char>(c)) != std::string_view::npos;
    EXPECT_EQ(isAtomChar(u), !special) << c;
    EXPECT_EQ(isAstringChar(u), !special || c == ']') << c;
    EXPECT_EQ(isTagChar(u), (!special || c == ']') && c != '+') << c;
  }
}

}  // namespace
}  // namespace darius::proto
