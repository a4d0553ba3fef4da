// The SORT argument parser: criteria, REVERSE, the mandatory charset, ESORT return options,
// and malformed and hostile input.
#include "imapd/sort/sort_args.h"

#include <gtest/gtest.h>

#include <string>

namespace darius::imapd::sort {
namespace {

using proto::ArgParser;

base::Result<SortArgs> parse(const std::string& text, bool by_uid = false) {
  ArgParser p(text);
  auto a = parseSortArgs(p, by_uid);
  if (!a.ok()) return a;
  base::Status end = p.end();
  if (!end.isOk()) return end;
  return a;
}

// "criteria | charset | search" or "error: ...".
std::string described(const std::string& text) {
  auto a = parse(text);
  if (!a.ok()) return "error: " + a.status().message();
  return describeCriteria(a->criteria) + " | " + a->search.charset.value_or("-") + " | " +
         search::describe(a->search);
}

TEST(SortArgs, EveryKey) {
  EXPECT_EQ(described(" (ARRIVAL CC DATE FROM SIZE SUBJECT TO DISPLAYFROM DISPLAYTO) UTF-8 ALL"),
            "ARRIVAL CC DATE FROM SIZE SUBJECT TO DISPLAYFROM DISPLAYTO | UTF-8 | ALL");
  EXPECT_EQ(described(" (subject reverse date) us-ascii ALL"),
            "SUBJECT REVERSE DATE | us-ascii | ALL");
  EXPECT_EQ(described(" (REVERSE SIZE) UTF-8 SINCE 1-Feb-1994 UNSEEN"),
            "REVERSE SIZE | UTF-8 | SINCE 1-Feb-1994 UNSEEN");
}

TEST(SortArgs, CharsetIsMandatoryAndMayBeQuoted) {
  EXPECT_EQ(described(" (DATE) \"UTF-8\" ALL"), "DATE | UTF-8 | ALL");
  // Without a charset the first key is taken for one, and then there is no key.
  EXPECT_EQ(described(" (DATE) ALL"), "error: Missing search criteria");
  EXPECT_EQ(described(" (DATE)"), "error: Missing charset");
  EXPECT_EQ(described(" (DATE) UTF-8"), "error: Missing search criteria");
  // An unknown charset parses: it is a NO [BADCHARSET] at execution, not a BAD.
  EXPECT_EQ(described(" (DATE) x-unknown ALL"), "DATE | x-unknown | ALL");
  // SEARCH's CHARSET and RETURN words are not search keys.
  EXPECT_EQ(described(" (DATE) UTF-8 CHARSET UTF-8 ALL"), "error: Unknown search key");
  EXPECT_EQ(described(" (DATE) UTF-8 RETURN (ALL) ALL"), "error: Unknown search key");
}

TEST(SortArgs, ReturnOptions) {
  auto a = parse(" RETURN (MIN MAX COUNT ALL SAVE) (DATE) UTF-8 ALL");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE(a->search.has_return);
  EXPECT_TRUE(a->search.ret.min && a->search.ret.max && a->search.ret.count &&
              a->search.ret.all && a->search.ret.save);
  auto e = parse(" RETURN () (DATE) UTF-8 ALL");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->search.has_return);
  EXPECT_FALSE(e->search.ret.min || e->search.ret.all);
  auto none = parse(" (DATE) UTF-8 ALL");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->search.has_return);
  EXPECT_EQ(described(" RETURN (DATE) UTF-8 ALL"), "error: Unknown search return option DATE");
}

// RFC 9394 and RFC 5267 §4 (CONTEXT=SORT): the options SEARCH takes, with its rules.
TEST(SortArgs, PartialContextAndUpdate) {
  auto a = parse(" RETURN (PARTIAL -1:-10 UPDATE CONTEXT COUNT) (REVERSE DATE) UTF-8 ALL");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(a->search.ret.partial.has_value());
  EXPECT_EQ(a->search.ret.partial->low(), 1u);
  EXPECT_EQ(a->search.ret.partial->high(), 10u);
  EXPECT_TRUE(a->search.ret.partial->from_end);
  EXPECT_TRUE(a->search.ret.update && a->search.ret.context && a->search.ret.count);
  EXPECT_EQ(described(" RETURN (PARTIAL 1:10 ALL) (DATE) UTF-8 ALL"),
            "error: PARTIAL and ALL together");
  EXPECT_EQ(described(" RETURN (PARTIAL 1:10 PARTIAL 5:6) (DATE) UTF-8 ALL"),
            "error: PARTIAL given twice");
  EXPECT_TRUE(described(" RETURN (PARTIAL 0:10) (DATE) UTF-8 ALL").starts_with("error: "));
  EXPECT_TRUE(described(" RETURN (PARTIAL) (DATE) UTF-8 ALL").starts_with("error: "));
}

TEST(SortArgs, UidSortKeepsTheUidFlag) {
  auto a = parse(" (ARRIVAL) UTF-8 UID 1:*", true);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->search.by_uid);
  EXPECT_EQ(search::describe(a->search), "UID 1:*");
}

TEST(SortArgs, BadCriteria) {
  EXPECT_EQ(described(" () UTF-8 ALL"), "error: Missing sort criteria");
  EXPECT_EQ(described(" UTF-8 ALL"), "error: Missing sort criteria");
  EXPECT_EQ(described(" DATE UTF-8 ALL"), "error: Missing sort criteria");
  EXPECT_EQ(described(" (BOGUS) UTF-8 ALL"), "error: Unknown sort criterion BOGUS");
  EXPECT_EQ(described(" (REVERSE) UTF-8 ALL"), "error: REVERSE must be followed by a sort key");
  EXPECT_EQ(described(" (DATE REVERSE) UTF-8 ALL"),
            "error: REVERSE must be followed by a sort key");
  EXPECT_EQ(described(" (REVERSE REVERSE DATE) UTF-8 ALL"),
            "error: REVERSE must be followed by a sort key");
  EXPECT_TRUE(described(" (DATE UTF-8 ALL").starts_with("error: "));
  EXPECT_TRUE(described(" (DATE)UTF-8 ALL").starts_with("error: "));
  EXPECT_TRUE(described(" (\"DATE\") UTF-8 ALL").starts_with("error: "));
  EXPECT_TRUE(described("").starts_with("error: "));
  EXPECT_EQ(described(" (DATE) UTF-8 BOGUS"), "error: Unknown search key BOGUS");
}

TEST(SortArgs, HostileInput) {
  std::string many = " (";
  for (int i = 0; i < 1000; ++i) many += "DATE ";
  many += "DATE) UTF-8 ALL";
  EXPECT_TRUE(described(many).starts_with("error: "));
  std::string big(1 << 20, 'x');
  auto a = parse(" (DATE) UTF-8 SUBJECT \"" + big + "\"");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->search.keys[1].text.size(), big.size());
}

}  // namespace
}  // namespace darius::imapd::sort
