// RFC 5256 §2.1 base subject extraction, step by step, and the reply/forward indication
// THREAD needs.
#include "imapd/sort/base_subject.h"

#include <gtest/gtest.h>

#include <string>

namespace darius::imapd::sort {
namespace {

std::string base(std::string_view raw) { return baseSubject(raw).text; }
bool refwd(std::string_view raw) { return baseSubject(raw).reply_or_forward; }

TEST(BaseSubject, PlainSubjectIsItself) {
  EXPECT_EQ(base("Hello world"), "Hello world");
  EXPECT_FALSE(refwd("Hello world"));
  EXPECT_EQ(base(""), "");
  EXPECT_FALSE(refwd(""));
}

TEST(BaseSubject, WhiteSpaceIsNormalised) {  // step (1)
  EXPECT_EQ(base("  a \t\t b\r\n  c  "), "a b c");
  EXPECT_EQ(base("a\r\n\tb"), "a b");
}

TEST(BaseSubject, EncodedWordsAreDecoded) {  // step (1)
  EXPECT_EQ(base("=?UTF-8?B?w6l0w6k=?="), "\xC3\xA9t\xC3\xA9");
  EXPECT_EQ(base("=?ISO-8859-1?Q?Re=3A_caf=E9?="), "caf\xC3\xA9");
  EXPECT_TRUE(refwd("=?ISO-8859-1?Q?Re=3A_caf=E9?="));
  // Two adjacent encoded words join without the space between them (RFC 2047 §6.2).
  EXPECT_EQ(base("=?UTF-8?Q?Re:_a?= =?UTF-8?Q?b?="), "ab");
}

TEST(BaseSubject, TrailersAreRemoved) {  // step (2)
  EXPECT_EQ(base("hello (fwd)"), "hello");
  EXPECT_TRUE(refwd("hello (fwd)"));
  EXPECT_EQ(base("hello (FWD) (fwd)  "), "hello");
  EXPECT_EQ(base("hello(fwd)"), "hello");
  EXPECT_FALSE(refwd("hello   "));
  EXPECT_EQ(base("hello (fwd) x"), "hello (fwd) x");
}

TEST(BaseSubject, LeadersAreRemoved) {  // step (3)
  EXPECT_EQ(base("Re: hello"), "hello");
  EXPECT_EQ(base("RE: hello"), "hello");
  EXPECT_EQ(base("re:hello"), "hello");
  EXPECT_EQ(base("Fw: hello"), "hello");
  EXPECT_EQ(base("FWD: hello"), "hello");
  EXPECT_EQ(base("Re: Re: Fwd: hello"), "hello");
  EXPECT_EQ(base("Re[2]: hello"), "hello");
  EXPECT_EQ(base("Re [2] : hello"), "hello");
  EXPECT_EQ(base("Re  : hello"), "hello");
  EXPECT_TRUE(refwd("Re: hello"));
  EXPECT_TRUE(refwd("Re[3]: hello"));
  // Blobs before the refwd go with it.
  EXPECT_EQ(base("[list] Re: hello"), "hello");
  EXPECT_EQ(base("[a][b] re: hello"), "hello");
  // Not a refwd: these stay.
  EXPECT_EQ(base("Reply: hello"), "Reply: hello");
  EXPECT_EQ(base("Fwdx: hello"), "Fwdx: hello");
  EXPECT_EQ(base("Re hello"), "Re hello");
  EXPECT_FALSE(refwd("Reply: hello"));
  EXPECT_EQ(base("Re: "), "");
  EXPECT_TRUE(refwd("Re: "));
}

TEST(BaseSubject, BlobsGoOnlyIfSomethingIsLeft) {  // step (4)
  EXPECT_EQ(base("[list] hello"), "hello");
  EXPECT_FALSE(refwd("[list] hello"));
  EXPECT_EQ(base("[a] [b] hello"), "hello");
  EXPECT_EQ(base("[list]"), "[list]");
  EXPECT_EQ(base("[a] [b]"), "[b]");
  EXPECT_EQ(base("[a]hello"), "hello");
  // An unclosed "[" is not a blob.
  EXPECT_EQ(base("[a hello"), "[a hello");
  // "[" inside a blob ends it.
  EXPECT_EQ(base("[a[b] hello"), "[a[b] hello");
}

TEST(BaseSubject, LeadersAndBlobsAlternate) {  // step (5)
  EXPECT_EQ(base("Re: [list] Re: hello"), "hello");
  EXPECT_EQ(base("[list] [x] Fwd: [y] re: hello"), "hello");
}

TEST(BaseSubject, FwdHeaderAndTrailerAreRemoved) {  // step (6)
  EXPECT_EQ(base("[fwd: hello]"), "hello");
  EXPECT_TRUE(refwd("[fwd: hello]"));
  EXPECT_EQ(base("[FWD: Re: hello (fwd)]"), "hello");
  EXPECT_EQ(base("Re: [fwd: [fwd: hello] ]"), "hello");
  EXPECT_EQ(base("[fwd: hello] x"), "x");  // a blob, then a base: (4), not (6)
  EXPECT_FALSE(refwd("[fwd: hello] x"));
  EXPECT_EQ(base("[fwd:]"), "");
}

TEST(BaseSubject, KeyIsCaseFolded) {
  EXPECT_EQ(baseSubject("Re: HELLO World").key, "hello world");
  EXPECT_EQ(baseSubject("STRASSE").key, baseSubject("stra\xC3\x9F" "e").key);
  EXPECT_EQ(baseSubject("=?UTF-8?Q?=C3=89T=C3=89?=").key, baseSubject("\xC3\xA9t\xC3\xA9").key);
  EXPECT_EQ(baseSubject("Re: Hello").text, "Hello");
}

TEST(BaseSubject, HostileInputStaysLinearEnough) {
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "Re: [x] ";
  many += "end";
  EXPECT_EQ(base(many), "end");
  std::string brackets(100000, '[');
  EXPECT_EQ(base(brackets), brackets);
}

}  // namespace
}  // namespace darius::imapd::sort
