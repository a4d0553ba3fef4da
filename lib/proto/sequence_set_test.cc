// SequenceSet (RFC 9051 §9 sequence-set, RFC 5182 "$"): parsing, canonical form, "*"
// resolution, membership, iteration and the limits against hostile sets.
#include "lib/proto/sequence_set.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "lib/proto/arg_parser.h"

namespace darius::proto {
namespace {

using base::Code;

SequenceSet parsed(std::string_view text) {
  auto s = SequenceSet::parse(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().toString();
  return s.ok() ? *s : SequenceSet();
}

std::vector<uint32_t> membersOf(const SequenceSet& s, uint32_t max) {
  std::vector<uint32_t> out;
  for (uint32_t n : s.members(max)) out.push_back(n);
  return out;
}

TEST(SequenceSet, RfcExamples) {
  // RFC 9051 §9: "2,4:7,9,12:*" for a mailbox with 15 messages.
  EXPECT_EQ(membersOf(parsed("2,4:7,9,12:*"), 15),
            (std::vector<uint32_t>{2, 4, 5, 6, 7, 9, 12, 13, 14, 15}));
  // "*:4,5:7" with 10 messages is 4..10.
  EXPECT_EQ(membersOf(parsed("*:4,5:7"), 10), (std::vector<uint32_t>{4, 5, 6, 7, 8, 9, 10}));
  // A UID range 3291:* includes the last UID even when it is lower than 3291.
  EXPECT_TRUE(parsed("3291:*").contains(100, 100));
  EXPECT_TRUE(parsed("3291:*").contains(3291, 100));
  EXPECT_TRUE(parsed("3291:*").contains(2000, 100));
  EXPECT_FALSE(parsed("3291:*").contains(99, 100));
  EXPECT_FALSE(parsed("3291:*").contains(3292, 100));
}

TEST(SequenceSet, ReversedRangesAreTheSame) {
  EXPECT_EQ(parsed("5:2"), parsed("2:5"));
  EXPECT_EQ(parsed("5:2").format(), "2:5");
  EXPECT_EQ(parsed("4294967295:1").format(), "1:4294967295");
}

TEST(SequenceSet, CanonicalFormMergesAndSorts) {
  EXPECT_EQ(parsed("7,1,3:5,2,6").format(), "1:7");
  EXPECT_EQ(parsed("10:12,1,1,1,3").format(), "1,3,10:12");
  EXPECT_EQ(parsed("1:3,4:6").format(), "1:6") << "adjacent ranges merge";
  EXPECT_EQ(parsed("1:10,2:3").format(), "1:10") << "contained ranges vanish";
  EXPECT_EQ(parsed("4294967295,4294967294,1").format(), "1,4294967294:4294967295");
  EXPECT_EQ(parsed("*").format(), "*");
  EXPECT_EQ(parsed("*:*").format(), "*");
  EXPECT_EQ(parsed("5:*,*:9,1:2").format(), "1:2,5:*,9:*");
  EXPECT_EQ(parsed("5:*,*,*:5").format(), "5:*");
  EXPECT_EQ(parsed("$").format(), "$");
  EXPECT_EQ(parsed("1:3,$").format(), "1:3,$");
  EXPECT_EQ(SequenceSet().format(), "");
  // parse(format(x)) == x for all of them.
  for (const char* t : {"7,1,3:5", "5:*,*:9,1:2", "*", "1:3,$", "$", "4294967295:1,*:3"}) {
    SequenceSet s = parsed(t);
    EXPECT_EQ(parsed(s.format()), s) << t;
  }
}

TEST(SequenceSet, ManyStarRangesKeepOnlyTwoAnchors) {
  // Every n:* contains the max: together they are min(n, max)..max(n, max).
  SequenceSet s = parsed("50:*,10:*,30:*,*");
  EXPECT_EQ(s.format(), "10:*,50:*");
  EXPECT_EQ(s.resolve(20), (std::vector<SeqRange>{{10, 50}}));
  EXPECT_EQ(s.resolve(5), (std::vector<SeqRange>{{5, 50}}));
  EXPECT_EQ(s.resolve(80), (std::vector<SeqRange>{{10, 80}}));
  for (uint32_t max : {1u, 5u, 10u, 20u, 50u, 80u}) {
    for (uint32_t n = 1; n <= 100; ++n) {
      bool expect = false;
      for (uint32_t a : {50u, 10u, 30u, max}) {
        if (n >= std::min(a, max) && n <= std::max(a, max)) expect = true;
      }
      EXPECT_EQ(s.contains(n, max), expect) << n << " max " << max;
    }
  }
}

TEST(SequenceSet, ResolveMergesStarWithNumbers) {
  SequenceSet s = parsed("1:3,8:*,20");
  EXPECT_EQ(s.resolve(10), (std::vector<SeqRange>{{1, 3}, {8, 10}, {20, 20}}));
  EXPECT_EQ(s.resolve(19), (std::vector<SeqRange>{{1, 3}, {8, 20}}));
  EXPECT_EQ(s.resolve(4), (std::vector<SeqRange>{{1, 8}, {20, 20}}));
  EXPECT_EQ(s.count(10), 3u + 3u + 1u);
  EXPECT_EQ(s.largest(10), 20u);
  EXPECT_EQ(s.largest(30), 30u);
  EXPECT_EQ(parsed("*").resolve(7), (std::vector<SeqRange>{{7, 7}}));
}

TEST(SequenceSet, StarInAnEmptyMailbox) {
  // With max 0, "*" alone is nothing and "n:*" is 1:n; hasStar() lets a command say BAD.
  EXPECT_TRUE(parsed("*").resolve(0).empty());
  EXPECT_TRUE(parsed("*").hasStar());
  EXPECT_EQ(parsed("*").largest(0), 0u);
  EXPECT_FALSE(parsed("*").contains(1, 0));
  EXPECT_EQ(parsed("3:*").resolve(0), (std::vector<SeqRange>{{1, 3}}));
  EXPECT_TRUE(parsed("3:*").contains(1, 0));
  EXPECT_EQ(parsed("3:*").count(0), 3u);
  EXPECT_FALSE(parsed("1:5").hasStar());
}

TEST(SequenceSet, MembershipIsExact) {
  SequenceSet s = parsed("2,4:7,9,12:15,4294967295");
  std::set<uint32_t> want = {2, 4, 5, 6, 7, 9, 12, 13, 14, 15, 4294967295u};
  for (uint32_t n = 0; n < 20; ++n) EXPECT_EQ(s.contains(n, 15), want.count(n) == 1) << n;
  EXPECT_TRUE(s.contains(4294967295u, 15));
  EXPECT_FALSE(s.contains(4294967294u, 15));
  EXPECT_FALSE(s.contains(0, 15)) << "zero is never a member";
}

TEST(SequenceSet, IterationReachesTheTopWithoutWrapping) {
  EXPECT_EQ(membersOf(parsed("4294967293:4294967295"), 1),
            (std::vector<uint32_t>{4294967293u, 4294967294u, 4294967295u}));
  EXPECT_EQ(parsed("1:4294967295").count(1), 4294967295u);
  // Iteration is lazy: the first members of a huge range come at once.
  auto m = parsed("1:4294967295").members(1);
  auto it = m.begin();
  EXPECT_EQ(*it, 1u);
  EXPECT_EQ(*++it, 2u);
  EXPECT_TRUE(SequenceSet().members(10).begin() == SequenceSet().members(10).end());
}

TEST(SequenceSet, MalformedSetsAreInvalid) {
  for (const char* bad : {"",      "0",   "0:5",        "5:0",          "1,0",
                          "00",    "01",  "1:",         ":1",           ":",
                          ",",     "1,",  ",1",         "1,,2",         "1::2",
                          "1:2:3", "-1",  "1-3",        "1 2",          " 1",
                          "1 ",    "a",   "1a",         "*1",           "1*",
                          "**",    "*:",  "4294967296", "1:4294967296", "99999999999999999999",
                          "$:1",   "1:$", "$,1",        "$$",           "$,$",
                          "1,$,2", "$*",  "\xff",       "1\r\n2"}) {
    auto s = SequenceSet::parse(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.status().code(), Code::kInvalid) << bad;
  }
}

TEST(SequenceSet, LastResultMarker) {
  SequenceSet dollar = parsed("$");
  EXPECT_TRUE(dollar.hasLastResult());
  EXPECT_FALSE(dollar.empty());
  EXPECT_TRUE(dollar.resolve(10).empty()) << "unsubstituted $ contributes nothing";
  SequenceSet saved = parsed("3,5:6");
  SequenceSet sub = dollar.substituteLastResult(saved);
  EXPECT_FALSE(sub.hasLastResult());
  EXPECT_EQ(sub.format(), "3,5:6");
  EXPECT_EQ(parsed("1:3,$").substituteLastResult(saved).format(), "1:3,5:6");
  // An empty saved result is a valid, non-matching set (RFC 5182 §2.1).
  SequenceSet none = dollar.substituteLastResult(SequenceSet());
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.count(100), 0u);
  EXPECT_EQ(parsed("7").substituteLastResult(saved), parsed("7"));
  auto refused = SequenceSet::parse("$", {.allow_last_result = false});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kInvalid);
  EXPECT_EQ(SequenceSet::lastResult(), dollar);
}

TEST(SequenceSet, TooManyRangesIsTooBig) {
  std::string text;
  for (int i = 1; i <= 1001; ++i) text += (i > 1 ? "," : "") + std::to_string(i * 2);
  auto over = SequenceSet::parse(text, {.max_ranges = 1000});
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), Code::kTooBig);
  auto at = SequenceSet::parse(text.substr(0, text.rfind(',')), {.max_ranges = 1000});
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(at->ranges().size(), 1000u);
  // Elements count as written, before merging: a million "1"s are refused too, and quickly.
  std::string ones = "1";
  for (int i = 0; i < 1000000; ++i) ones += ",1";
  auto flood = SequenceSet::parse(ones);
  ASSERT_FALSE(flood.ok());
  EXPECT_EQ(flood.status().code(), Code::kTooBig);
}

TEST(SequenceSet, BuildersForServerResponses) {
  // COPYUID / ESEARCH: the server's own numbers, in any order, in canonical form.
  auto s = SequenceSet::fromNumbers({9, 3, 4, 5, 1, 10, 4});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->format(), "1,3:5,9:10");
  EXPECT_FALSE(SequenceSet::fromNumbers({1, 0}).ok());
  auto r = SequenceSet::fromRanges({{8, 6}, {1, 2}, {3, 3}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->format(), "1:3,6:8");
  EXPECT_FALSE(SequenceSet::fromRanges({{0, 3}}).ok());
  EXPECT_TRUE(SequenceSet::fromNumbers({})->empty());
}

TEST(SequenceSet, AddKeepsCanonicalForm) {
  SequenceSet s;
  ASSERT_TRUE(s.add(10, 12).isOk());
  ASSERT_TRUE(s.add(1, 1).isOk());
  ASSERT_TRUE(s.add(5, 5).isOk());
  EXPECT_EQ(s.format(), "1,5,10:12");
  ASSERT_TRUE(s.add(13, 13).isOk());
  EXPECT_EQ(s.format(), "1,5,10:13");
  ASSERT_TRUE(s.add(4, 2).isOk());
  EXPECT_EQ(s.format(), "1:5,10:13");
  ASSERT_TRUE(s.add(7, 8).isOk());
  ASSERT_TRUE(s.add(6, 20).isOk());
  EXPECT_EQ(s.format(), "1:20");
  ASSERT_TRUE(s.add(4294967295u, 4294967295u).isOk());
  ASSERT_TRUE(s.add(4294967294u, 4294967294u).isOk());
  EXPECT_EQ(s.format(), "1:20,4294967294:4294967295");
  EXPECT_FALSE(s.add(0, 3).isOk());
  EXPECT_EQ(s.format(), "1:20,4294967294:4294967295");
}

TEST(SequenceSet, AddAgreesWithFromNumbers) {
  // A deterministic pseudo-random walk: add() one by one equals the bulk builder.
  uint32_t x = 12345;
  std::vector<uint32_t> numbers;
  SequenceSet s;
  for (int i = 0; i < 2000; ++i) {
    x = x * 1103515245u + 12345u;
    uint32_t n = 1 + (x >> 8) % 500;
    numbers.push_back(n);
    ASSERT_TRUE(s.add(n, n).isOk());
  }
  EXPECT_EQ(s, *SequenceSet::fromNumbers(numbers));
}

TEST(SequenceSet, ArgParserFindsTheExtent) {
  ArgParser p("1:5,7 (FLAGS)");
  auto s = p.sequenceSet();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->format(), "1:5,7");
  EXPECT_TRUE(p.peek(' '));
  ArgParser q("(OR $ 1,3000:3021)");
  ASSERT_TRUE(q.skipIf('('));
  ASSERT_TRUE(q.atom().ok());
  ASSERT_TRUE(q.space().isOk());
  EXPECT_TRUE(q.sequenceSet()->hasLastResult());
  ASSERT_TRUE(q.space().isOk());
  EXPECT_EQ(q.sequenceSet()->format(), "1,3000:3021");
  EXPECT_TRUE(q.skipIf(')'));
  for (const char* bad : {"1:5x", "1:5\"", "1.5", "", " 1", "(1)", "1:5{3}", "0"}) {
    ArgParser b(bad);
    EXPECT_FALSE(b.sequenceSet().ok()) << bad;
    EXPECT_EQ(b.position(), 0u) << bad;
  }
}

}  // namespace
}  // namespace darius::proto
