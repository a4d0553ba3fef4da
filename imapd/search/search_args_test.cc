// The SEARCH argument parser: every key of RFC 3501/9051 and the extensions, nesting, OR/NOT
// precedence, RETURN and CHARSET, and malformed and hostile input (deep nesting, key floods,
// unknown keys, bad dates, zero and huge numbers).
#include "imapd/search/search_args.h"

#include <gtest/gtest.h>

#include <string>

#include "mailbox/index_format.h"

namespace darius::imapd::search {
namespace {

using proto::ArgParser;

// Parses `text` (what follows "SEARCH", its leading SP included) the way the command does:
// the keys, then the end of the command.
base::Result<SearchArgs> parse(const std::string& text, bool by_uid = false,
                               const SearchLimits& limits = {}) {
  ArgParser p(text);
  auto a = parseSearchArgs(p, by_uid, limits);
  if (!a.ok()) return a;
  base::Status end = p.end();
  if (!end.isOk()) return end;
  return a;
}

std::string described(const std::string& text) {
  auto a = parse(text);
  if (!a.ok()) return "error: " + a.status().message();
  return describe(*a);
}

std::string errorOf(const std::string& text, bool by_uid = false) {
  auto a = parse(text, by_uid);
  if (a.ok()) return "parsed: " + describe(*a);
  return a.status().message();
}

TEST(SearchArgs, EveryKeyOfRfc3501And9051) {
  const std::pair<std::string, std::string> cases[] = {
      {" ALL", "ALL"},
      {" answered", "ANSWERED"},
      {" BCC boss", "BCC \"boss\""},
      {" BEFORE 1-Feb-1994", "BEFORE 1-Feb-1994"},
      {" BEFORE \"01-Feb-1994\"", "BEFORE 1-Feb-1994"},
      {" BODY \"hello world\"", "BODY \"hello world\""},
      {" CC x@y", "CC \"x@y\""},
      {" DELETED", "DELETED"},
      {" DRAFT", "DRAFT"},
      {" FLAGGED", "FLAGGED"},
      {" FROM Smith", "FROM \"Smith\""},
      {" HEADER Message-ID <a@b>", "HEADER \"Message-ID\" \"<a@b>\""},
      {" HEADER X-Spam \"\"", "HEADER \"X-Spam\" \"\""},
      {" KEYWORD $Junk", "KEYWORD $Junk"},
      {" LARGER 1000", "LARGER 1000"},
      {" NEW", "(RECENT UNSEEN)"},
      {" NOT SEEN", "NOT SEEN"},
      {" OLD", "NOT RECENT"},
      {" ON 31-Dec-2023", "ON 31-Dec-2023"},
      {" OR SEEN DRAFT", "OR SEEN DRAFT"},
      {" RECENT", "RECENT"},
      {" SEEN", "SEEN"},
      {" SENTBEFORE 2-Mar-2020", "SENTBEFORE 2-Mar-2020"},
      {" SENTON 2-Mar-2020", "SENTON 2-Mar-2020"},
      {" SENTSINCE 2-Mar-2020", "SENTSINCE 2-Mar-2020"},
      {" SINCE 29-Feb-2024", "SINCE 29-Feb-2024"},
      {" SMALLER 5", "SMALLER 5"},
      {" SUBJECT {3}\r\nabc", "SUBJECT \"abc\""},
      {" TEXT \"a \\\"b\\\"\"", "TEXT \"a \\\"b\\\"\""},
      {" TO me", "TO \"me\""},
      {" UID 1:5,7", "UID 1:5,7"},
      {" UNANSWERED", "UNANSWERED"},
      {" UNDELETED", "UNDELETED"},
      {" UNDRAFT", "UNDRAFT"},
      {" UNFLAGGED", "UNFLAGGED"},
      {" UNKEYWORD Work", "UNKEYWORD Work"},
      {" UNSEEN", "UNSEEN"},
      {" 2:4,9", "2:4,9"},
      {" 1:*", "1:*"},
      {" *", "*"},
      {" $", "$"},
      {" UID $", "UID $"},
      {" (SEEN)", "(SEEN)"},
      // Extensions.
      {" MODSEQ 0", "MODSEQ 0"},
      {" MODSEQ 620162338", "MODSEQ 620162338"},
      {" MODSEQ \"/flags/\\\\draft\" all 620162338",
       "MODSEQ \"/flags/\\\\draft\" all 620162338"},
      {" MODSEQ \"/flags/$mdnsent\" PRIV 5", "MODSEQ \"/flags/$mdnsent\" PRIV 5"},
      {" SAVEDBEFORE 1-Jan-2015", "SAVEDBEFORE 1-Jan-2015"},
      {" SAVEDON 1-Jan-2015", "SAVEDON 1-Jan-2015"},
      {" SAVEDSINCE 1-Jan-2015", "SAVEDSINCE 1-Jan-2015"},
      {" SAVEDATESUPPORTED", "SAVEDATESUPPORTED"},
      {" EMAILID M6d99ac3275bb4e", "EMAILID M6d99ac3275bb4e"},
      {" THREADID T64b478a75b7ea9", "THREADID T64b478a75b7ea9"},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(described(in), want) << in;
}

TEST(SearchArgs, FlagKeysCarryTheirBits) {
  auto a = parse(" SEEN UNANSWERED FLAGGED UNDELETED DRAFT");
  ASSERT_TRUE(a.ok());
  const auto& root = a->keys[0];
  ASSERT_EQ(root.children.size(), 5u);
  EXPECT_EQ(a->keys[root.children[0]].kind, KeyKind::kFlag);
  EXPECT_EQ(a->keys[root.children[0]].flag, mailbox::kFlagSeen);
  EXPECT_EQ(a->keys[root.children[1]].kind, KeyKind::kNoFlag);
  EXPECT_EQ(a->keys[root.children[1]].flag, mailbox::kFlagAnswered);
  EXPECT_EQ(a->keys[root.children[2]].flag, mailbox::kFlagFlagged);
  EXPECT_EQ(a->keys[root.children[3]].flag, mailbox::kFlagDeleted);
  EXPECT_EQ(a->keys[root.children[4]].flag, mailbox::kFlagDraft);
}

TEST(SearchArgs, OrAndNotTakeExactlyTheNextKeys) {
  // OR binds two keys, NOT one; whatever follows is ANDed at the level where it stands.
  auto a = parse(" OR SEEN FLAGGED DELETED");
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->keys[0].children.size(), 2u);
  const SearchKey& orKey = a->keys[a->keys[0].children[0]];
  EXPECT_EQ(orKey.kind, KeyKind::kOr);
  EXPECT_EQ(a->keys[a->keys[0].children[1]].kind, KeyKind::kFlag);

  EXPECT_EQ(described(" NOT OR SEEN FLAGGED"), "NOT OR SEEN FLAGGED");
  auto b = parse(" NOT OR SEEN FLAGGED DRAFT");
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b->keys[0].children.size(), 2u);
  const SearchKey& notKey = b->keys[b->keys[0].children[0]];
  ASSERT_EQ(notKey.kind, KeyKind::kNot);
  EXPECT_EQ(b->keys[notKey.children[0]].kind, KeyKind::kOr);

  auto c = parse(" OR NOT SEEN FLAGGED");
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->keys[0].children.size(), 1u);
  const SearchKey& or2 = c->keys[c->keys[0].children[0]];
  ASSERT_EQ(or2.kind, KeyKind::kOr);
  EXPECT_EQ(c->keys[or2.children[0]].kind, KeyKind::kNot);
  EXPECT_EQ(c->keys[or2.children[1]].kind, KeyKind::kFlag);

  // OR of OR, and lists as operands.
  EXPECT_EQ(described(" OR OR SEEN DRAFT (FROM a TO b)"), "OR OR SEEN DRAFT (FROM \"a\" TO \"b\")");
  EXPECT_EQ(described(" OR (SEEN DRAFT) NOT (LARGER 5 SMALLER 10) UID 3"),
            "OR (SEEN DRAFT) NOT (LARGER 5 SMALLER 10) UID 3");
}

TEST(SearchArgs, NestedListsAndSequenceSetsInside) {
  EXPECT_EQ(described(" ((SEEN) (1:3 (UID 4,5)))"), "((SEEN) (1:3 (UID 4:5)))");
  EXPECT_EQ(described(" (OR $ 1,3000:3021) TEXT {8}\r\nYYYYYYYY"),
            "(OR $ 1,3000:3021) TEXT \"YYYYYYYY\"");
}

TEST(SearchArgs, KeywordsAreCaseInsensitive) {
  EXPECT_EQ(described(" from x Not seen oR unDraft NeW"), "FROM \"x\" NOT SEEN OR UNDRAFT (RECENT UNSEEN)");
}

TEST(SearchArgs, ReturnOptions) {
  auto a = parse(" RETURN (MIN MAX COUNT ALL SAVE) FLAGGED");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->has_return);
  EXPECT_TRUE(a->ret.min && a->ret.max && a->ret.count && a->ret.all && a->ret.save);
  auto b = parse(" RETURN () FLAGGED");
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->has_return);
  EXPECT_FALSE(b->ret.min || b->ret.max || b->ret.count || b->ret.all || b->ret.save);
  auto c = parse(" return (save min) ALL", true);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->by_uid && c->ret.save && c->ret.min && !c->ret.max);
  auto d = parse(" FLAGGED");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->has_return);

  EXPECT_EQ(errorOf(" RETURN (FUZZY) ALL"), "Unknown search return option FUZZY");
  EXPECT_EQ(errorOf(" RETURN (MIN"), "Unterminated list");
  EXPECT_EQ(errorOf(" RETURN MIN ALL"), "Expected \"(\"");
  EXPECT_EQ(errorOf(" RETURN (MIN)"), "Missing argument");
  EXPECT_EQ(errorOf(" RETURN (MIN MIN MIN MIN MIN MIN MIN MIN MIN MIN MIN MIN MIN MIN MIN MIN MIN) ALL"),
            "Too many items in list");
}

// RFC 5267 §4.2-4.4 and RFC 9394 §3.1: CONTEXT, UPDATE, PARTIAL with both range forms.
TEST(SearchArgs, ContextUpdateAndPartial) {
  auto a = parse(" RETURN (CONTEXT UPDATE COUNT) UNSEEN", true);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->ret.context && a->ret.update && a->ret.count);
  EXPECT_FALSE(a->ret.partial.has_value());
  auto b = parse(" RETURN (PARTIAL 1:100) ALL");
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(b->ret.partial.has_value());
  EXPECT_EQ(*b->ret.partial, (PartialRange{1, 100, false}));
  auto c = parse(" RETURN (partial -1:-100 MIN) ALL");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c->ret.partial, (PartialRange{1, 100, true}));
  EXPECT_TRUE(c->ret.min);
  // "500:400 is the same as 400:500": kept as sent, low() and high() order it.
  auto d = parse(" RETURN (PARTIAL 500:400) ALL");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->ret.partial->first, 500u);
  EXPECT_EQ(d->ret.partial->low(), 400u);
  EXPECT_EQ(d->ret.partial->high(), 500u);
  auto e = parse(" RETURN (PARTIAL 4294967295:1) ALL");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->ret.partial->high(), 4294967295u);
}

TEST(SearchArgs, BadPartialRangesAndCombinations) {
  for (const char* bad : {" RETURN (PARTIAL 0:10) ALL", " RETURN (PARTIAL 1:0) ALL",
                          " RETURN (PARTIAL -1:10) ALL", " RETURN (PARTIAL 1:-10) ALL",
                          " RETURN (PARTIAL 1:*) ALL", " RETURN (PARTIAL 5) ALL",
                          " RETURN (PARTIAL -0:-3) ALL", " RETURN (PARTIAL 1:4294967296) ALL",
                          " RETURN (PARTIAL 01:5) ALL", " RETURN (PARTIAL 1,5) ALL",
                          " RETURN (PARTIAL a:b) ALL", " RETURN (PARTIAL 1::2) ALL"}) {
    EXPECT_EQ(errorOf(bad), "Invalid PARTIAL range") << bad;
  }
  EXPECT_EQ(errorOf(" RETURN (PARTIAL) ALL"), "Expected SP");
  // RFC 9394 §3.1: one PARTIAL, and never with ALL.
  EXPECT_EQ(errorOf(" RETURN (PARTIAL 1:5 PARTIAL 6:9) ALL"), "PARTIAL given twice");
  EXPECT_EQ(errorOf(" RETURN (ALL PARTIAL 1:5) ALL"), "PARTIAL and ALL together");
  EXPECT_EQ(errorOf(" RETURN (PARTIAL 1:5 ALL) ALL"), "PARTIAL and ALL together");
}

// RFC 5032: OLDER / YOUNGER nz-number.
TEST(SearchArgs, Within) {
  EXPECT_EQ(described(" OLDER 3600 YOUNGER 259200"), "OLDER 3600 YOUNGER 259200");
  EXPECT_EQ(described(" not younger 1"), "NOT YOUNGER 1");
  EXPECT_EQ(described(" OR OLDER 5 (YOUNGER 4294967295)"), "OR OLDER 5 (YOUNGER 4294967295)");
  EXPECT_EQ(errorOf(" OLDER 0"), "Invalid interval");
  EXPECT_EQ(errorOf(" YOUNGER -5"), "Invalid interval");
  EXPECT_EQ(errorOf(" YOUNGER 4294967296"), "Invalid interval");
  EXPECT_EQ(errorOf(" OLDER"), "Missing argument");
  EXPECT_EQ(errorOf(" OLDER 5x"), "Invalid interval");
}

TEST(SearchArgs, Charset) {
  auto a = parse(" CHARSET UTF-8 TEXT x");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->charset, "UTF-8");
  auto b = parse(" RETURN (COUNT) CHARSET \"ISO-8859-1\" BODY {1}\r\n\xe9");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->charset, "ISO-8859-1");
  EXPECT_EQ(describe(*b), "BODY {1}\r\n\xe9");
  auto c = parse(" SEEN");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->charset);
  // CHARSET only at the start, and not twice.
  EXPECT_EQ(errorOf(" SEEN CHARSET UTF-8"), "Unknown search key CHARSET");
  EXPECT_EQ(errorOf(" CHARSET UTF-8 CHARSET UTF-8 ALL"), "Unknown search key CHARSET");
  EXPECT_EQ(errorOf(" CHARSET"), "Unknown search key CHARSET");
  EXPECT_EQ(errorOf(" CHARSET (x) ALL"), "Invalid charset");
  // RETURN after CHARSET is not the grammar.
  EXPECT_EQ(errorOf(" CHARSET UTF-8 RETURN (MIN) ALL"), "Unknown search key RETURN");
}

TEST(SearchArgs, ModseqMarksTheSearch) {
  EXPECT_FALSE(parse(" ALL")->uses_modseq);
  EXPECT_TRUE(parse(" NOT MODSEQ 5")->uses_modseq);
  EXPECT_TRUE(parse(" OR SEEN (MODSEQ \"/flags/\\\\seen\" shared 7)")->uses_modseq);
}

TEST(SearchArgs, UnknownAndMalformedKeysAreBad) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "Missing argument"},
      {" ", "Missing search key"},
      {" FOO", "Unknown search key FOO"},
      {" SEEN FOO", "Unknown search key FOO"},
      {" FROM", "Missing argument"},
      {" FROM ", "Missing a string"},
      {" HEADER From", "Missing argument"},
      {" KEYWORD \\Seen", "Invalid keyword"},
      {" KEYWORD", "Missing argument"},
      {" UID", "Missing argument"},
      {" UID x", "Unexpected 'x'"},
      {" ()", "Invalid search key"},
      {" (SEEN", "Unterminated search key list"},
      {" (SEEN DRAFT", "Unterminated search key list"},
      {" SEEN)", "Unexpected extra arguments"},
      {" (SEEN)x", "Unexpected extra arguments"},
      {" (SEEN x", "Unknown search key x"},
      {" (SEEN\"x\")", "Expected SP or \")\" in search key list"},
      {" OR SEEN", "Missing argument"},
      {" OR", "Missing argument"},
      {" NOT", "Missing argument"},
      {" NOT ", "Missing search key"},
      {" SEEN ", "Missing search key"},
      {" SEEN  DRAFT", "Invalid search key"},
      {" MODSEQ", "Missing argument"},
      {" MODSEQ x", "Unexpected 'x'"},
      {" MODSEQ \"/x/\\\\seen\" all 5", "Invalid MODSEQ entry name"},
      {" MODSEQ \"/flags/\" all 5", "Invalid MODSEQ entry name"},
      {" MODSEQ \"/flags/\\\\seen\" bogus 5", "Invalid MODSEQ entry type"},
      {" MODSEQ \"/flags/\\\\seen\" all", "Missing argument"},
      {" EMAILID bad!id", "Invalid object id"},
      {" EMAILID " + std::string(256, 'a'), "Invalid object id"},
      {" THREADID", "Missing argument"},
      {" \x80", "Invalid search key"},
  };
  for (const auto& [in, want] : cases) {
    auto a = parse(in);
    ASSERT_FALSE(a.ok()) << in;
    EXPECT_EQ(a.status().code(), base::Code::kInvalid) << in;
    EXPECT_EQ(a.status().message().substr(0, want.size()), want) << in;
  }
}

TEST(SearchArgs, BadDates) {
  for (const char* in : {" BEFORE 32-Jan-2020", " ON 29-Feb-2023", " SINCE 1-Foo-2020",
                         " SENTON 1-Jan-20", " BEFORE 1-Jan-2020x", " SAVEDON \"1-Jan-2020",
                         " BEFORE 0-Jan-2020", " SINCE \"17-Jul-1996 02:44:25 -0700\"",
                         " ON", " ON 1/1/2020"}) {
    auto a = parse(in);
    EXPECT_FALSE(a.ok()) << in;
  }
  EXPECT_TRUE(parse(" ON 29-Feb-2024").ok());
  EXPECT_TRUE(parse(" ON 1-jan-0000").ok());
  EXPECT_TRUE(parse(" ON 31-DEC-9999").ok());
}

TEST(SearchArgs, ZeroAndHugeNumbers) {
  EXPECT_EQ(described(" LARGER 0"), "LARGER 0");
  EXPECT_EQ(described(" SMALLER 9223372036854775807"), "SMALLER 9223372036854775807");
  EXPECT_EQ(described(" 1:4294967295"), "1:4294967295");
  EXPECT_EQ(described(" UID 4294967295"), "UID 4294967295");
  for (const char* in : {" LARGER 9223372036854775808", " LARGER 99999999999999999999999",
                         " LARGER -1", " LARGER 12abc", " 0", " 0:5", " UID 0",
                         " 4294967296", " UID 1:4294967296", " MODSEQ 9223372036854775808",
                         " SMALLER", " LARGER x"}) {
    auto a = parse(in);
    EXPECT_FALSE(a.ok()) << in;
    if (!a.ok()) {
      EXPECT_EQ(a.status().code(), base::Code::kInvalid) << in;
    }
  }
}

TEST(SearchArgs, DepthLimit) {
  auto nested = [](int n) { return " " + std::string(n, '(') + "ALL" + std::string(n, ')'); };
  EXPECT_TRUE(parse(nested(63)).ok());  // 63 lists, ALL at depth 64
  auto deep = parse(nested(64));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().message(), "Search keys nested too deeply");
  EXPECT_FALSE(parse(nested(100000)).ok());

  std::string nots = " ";
  for (int i = 0; i < 63; ++i) nots += "NOT ";
  EXPECT_TRUE(parse(nots + "SEEN").ok());
  EXPECT_FALSE(parse(nots + "NOT SEEN").ok());
  std::string many_nots = " ";
  for (int i = 0; i < 200000; ++i) many_nots += "NOT ";
  EXPECT_FALSE(parse(many_nots + "SEEN").ok());

  std::string ors = " ";
  for (int i = 0; i < 100000; ++i) ors += "OR SEEN ";
  EXPECT_FALSE(parse(ors + "SEEN").ok());

  SearchLimits tight;
  tight.max_depth = 2;
  EXPECT_TRUE(parse(" (SEEN)", false, tight).ok());
  EXPECT_FALSE(parse(" ((SEEN))", false, tight).ok());
}

TEST(SearchArgs, KeyCountLimit) {
  auto keys = [](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += " ALL";
    return s;
  };
  EXPECT_TRUE(parse(keys(9999)).ok());  // with the root: 10,000 keys
  auto flood = parse(keys(10000));
  ASSERT_FALSE(flood.ok());
  EXPECT_EQ(flood.status().code(), base::Code::kTooBig);
  EXPECT_EQ(flood.status().message(), "Too many search keys");
  // NEW costs three keys.
  SearchLimits small;
  small.max_keys = 3;
  EXPECT_FALSE(parse(" NEW", false, small).ok());
  small.max_keys = 4;
  EXPECT_TRUE(parse(" NEW", false, small).ok());
}

TEST(SearchArgs, HugeSequenceSetsStayInTheirLimits) {
  std::string set = " ";
  for (int i = 1; i <= 100001; ++i) set += std::to_string(2 * i) + (i < 100001 ? "," : "");
  auto a = parse(set);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), base::Code::kTooBig);
}

}  // namespace
}  // namespace darius::imapd::search
