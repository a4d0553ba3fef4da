// ListPattern: "*" and "%" against external names, the hierarchy separator, INBOX's case,
// UTF-8 names, the subtree a pattern confines matches to, and hostile patterns.
#include "imapd/list/list_pattern.h"

#include <gtest/gtest.h>

#include <string>

namespace darius::imapd {
namespace {

bool m(std::string_view pattern, std::string_view name, char sep = '/') {
  return ListPattern(pattern, sep).matches(name);
}

TEST(ListPattern, StarMatchesEverythingIncludingSeparators) {
  EXPECT_TRUE(m("*", "INBOX"));
  EXPECT_TRUE(m("*", "a/b/c"));
  EXPECT_TRUE(m("*", ""));
  EXPECT_TRUE(m("a*", "a/b/c"));
  EXPECT_TRUE(m("a/*", "a/b/c"));
  EXPECT_FALSE(m("a/*", "a"));
  EXPECT_TRUE(m("*c", "a/b/c"));
  EXPECT_TRUE(m("a*c", "abc"));
  EXPECT_TRUE(m("a*b*c", "a/x/b/y/c"));
  EXPECT_FALSE(m("a*b*c", "a/x/c/y/b"));
}

TEST(ListPattern, PercentStopsAtTheSeparator) {
  EXPECT_TRUE(m("%", "Sent"));
  EXPECT_FALSE(m("%", "a/b"));
  EXPECT_TRUE(m("a/%", "a/b"));
  EXPECT_FALSE(m("a/%", "a/b/c"));
  EXPECT_FALSE(m("a/%", "a"));
  EXPECT_TRUE(m("a/%/c", "a/b/c"));
  EXPECT_TRUE(m("%/%", "a/b"));
  EXPECT_TRUE(m("a%", "a"));
  EXPECT_TRUE(m("a%", "abc"));
  EXPECT_FALSE(m("a%", "ab/c"));
  EXPECT_TRUE(m("%b", "ab"));
  // The separator of the namespace decides: '.' in the dot mode, '/' is then ordinary.
  EXPECT_TRUE(m("%", "a/b", '.'));
  EXPECT_FALSE(m("%", "a.b", '.'));
  EXPECT_TRUE(m("a.%", "a.b", '.'));
}

TEST(ListPattern, LiteralsCompareExactly) {
  EXPECT_TRUE(m("Sent", "Sent"));
  EXPECT_FALSE(m("Sent", "sent"));
  EXPECT_FALSE(m("Sent", "Sent/x"));
  EXPECT_FALSE(m("Sent", "Sen"));
  EXPECT_FALSE(m("", "a"));
  EXPECT_TRUE(m("", ""));
  EXPECT_TRUE(m("a b", "a b"));
}

TEST(ListPattern, InboxIsCaseInsensitiveOnlyAsTheFirstLevel) {
  EXPECT_TRUE(m("inbox", "INBOX"));
  EXPECT_TRUE(m("InBoX", "INBOX"));
  EXPECT_TRUE(m("in*", "INBOX"));
  EXPECT_TRUE(m("I%", "INBOX"));
  EXPECT_TRUE(m("inbox/%", "INBOX/Sent"));
  EXPECT_FALSE(m("inbox/sent", "INBOX/Sent"));  // only INBOX folds, not what is below it
  EXPECT_TRUE(m("inbox.*", "INBOX.a", '.'));
  // A folder whose name merely starts with INBOX is not INBOX.
  EXPECT_FALSE(m("inboxes", "INBOXes"));
  EXPECT_TRUE(m("INBOXes", "INBOXes"));
  // A name spelled otherwise is not the user's INBOX (Namespace always says "INBOX").
  EXPECT_FALSE(m("INBOX", "Inbox"));
}

TEST(ListPattern, Utf8NamesMatchWholeCharacters) {
  EXPECT_TRUE(m("Entw%rfe", "Entwürfe"));
  EXPECT_TRUE(m("*ü*", "Entwürfe"));
  EXPECT_TRUE(m("%", "日本語"));
  EXPECT_TRUE(m("日本*", "日本語/メール"));
  EXPECT_FALSE(m("日本%", "日本語/メール"));
  EXPECT_TRUE(m("日本%/メール", "日本語/メール"));
  EXPECT_FALSE(m("Entwurfe", "Entwürfe"));
}

TEST(ListPattern, RunsOfWildcardsCollapse) {
  EXPECT_EQ(ListPattern("**", '/').text(), "*");
  EXPECT_EQ(ListPattern("%%", '/').text(), "%");
  EXPECT_EQ(ListPattern("%*%", '/').text(), "*");
  EXPECT_EQ(ListPattern("a%%/%*b", '/').text(), "a%/*b");
  EXPECT_TRUE(m("%*", "a/b"));  // "%*" is "*": the star crosses the separator
  EXPECT_FALSE(m("%%", "a/b"));
}

TEST(ListPattern, FixedParentIsTheLevelEveryMatchLiesBelow) {
  EXPECT_EQ(ListPattern("Other Users/bob/%", '/').fixedParent(), "Other Users/bob");
  EXPECT_EQ(ListPattern("a/b*", '/').fixedParent(), "a");
  EXPECT_EQ(ListPattern("a/b/c", '/').fixedParent(), "a/b");
  EXPECT_EQ(ListPattern("a*/b", '/').fixedParent(), "");
  EXPECT_EQ(ListPattern("*", '/').fixedParent(), "");
  EXPECT_EQ(ListPattern("Sent", '/').fixedParent(), "");
  EXPECT_EQ(ListPattern("/x/%", '/').fixedParent(), "/x");
}

TEST(ListPattern, CouldMatchWithPrefix) {
  ListPattern p("Other Users/%", '/');
  EXPECT_TRUE(p.couldMatchWithPrefix("Other Users"));
  EXPECT_TRUE(p.couldMatchWithPrefix("Other Users/bob"));
  EXPECT_FALSE(p.couldMatchWithPrefix("Other Users/bob/"));
  EXPECT_FALSE(p.couldMatchWithPrefix("Shared Folders"));
  EXPECT_TRUE(ListPattern("%", '/').couldMatchWithPrefix("Shared Folders"));
  EXPECT_FALSE(ListPattern("Sent*", '/').couldMatchWithPrefix("Shared Folders"));
  EXPECT_TRUE(ListPattern("S*", '/').couldMatchWithPrefix("Shared Folders"));
  EXPECT_TRUE(ListPattern("", '/').couldMatchWithPrefix(""));
  // A prefix of "INBOX" may still become INBOX, whose case folds.
  EXPECT_TRUE(ListPattern("inbox", '/').couldMatchWithPrefix("INB"));
  EXPECT_TRUE(ListPattern("inbox/%", '/').couldMatchWithPrefix("INBOX/"));
  EXPECT_FALSE(ListPattern("inbox", '/').couldMatchWithPrefix("INBOXx"));
  EXPECT_FALSE(ListPattern("inbox", '/').couldMatchWithPrefix("Inb"));
}

TEST(ListPattern, TooManyLiteralsMatchNothing) {
  std::string big(100, 'a');
  ListPattern p(big, '/', 50);
  EXPECT_TRUE(p.matchesNothing());
  EXPECT_FALSE(p.matches(big));
  EXPECT_FALSE(p.couldMatchWithPrefix(""));
  ListPattern ok(big, '/', 100);
  EXPECT_FALSE(ok.matchesNothing());
  EXPECT_TRUE(ok.matches(big));
}

TEST(ListPattern, HostilePatternsStayCheap) {
  // Classic exponential cases for backtracking matchers: "a*a*a*...b" against "aaaa...".
  // The automaton answers in name length x pattern length steps; this would not finish in a
  // backtracking matcher.
  std::string pattern;
  for (int i = 0; i < 2000; ++i) pattern += "a*";
  pattern += "b";
  std::string name(4000, 'a');
  EXPECT_FALSE(m(pattern, name));
  name += 'b';
  EXPECT_TRUE(m(pattern, name));
  std::string percent;
  for (int i = 0; i < 2000; ++i) percent += "%a";
  EXPECT_FALSE(m(percent, std::string(4000, 'a') + "/"));
  EXPECT_TRUE(m(percent, std::string(4000, 'a')));
}

TEST(ListPattern, IsInboxRooted) {
  EXPECT_TRUE(isInboxRooted("INBOX", '/'));
  EXPECT_TRUE(isInboxRooted("INBOX/x", '/'));
  EXPECT_FALSE(isInboxRooted("INBOX/x", '.'));
  EXPECT_FALSE(isInboxRooted("INBOXx", '/'));
  EXPECT_FALSE(isInboxRooted("inbox", '/'));
  EXPECT_FALSE(isInboxRooted("", '/'));
}

}  // namespace
}  // namespace darius::imapd
