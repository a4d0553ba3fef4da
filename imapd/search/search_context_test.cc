// Search contexts (RFC 5267 §4.3): the ADDTO and REMOVEFROM lines a context gives for
// re-checked and expunged messages, in UID and sequence-number form, in mailbox order
// (position 0) and in a supplied order (positions, as CONTEXT=SORT uses); the session's
// set of contexts (limit, tags, CANCELUPDATE); sets pinned at command time; and the clock
// intervals of OLDER/YOUNGER programs.
#include "imapd/search/search_context.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace darius::imapd::search {
namespace {

SearchArgs argsOf(const std::string& keys, bool by_uid = true) {
  std::string text = " " + keys;
  proto::ArgParser p(text);
  auto a = parseSearchArgs(p, by_uid);
  EXPECT_TRUE(a.ok()) << keys;
  return a.ok() ? *a : SearchArgs{};
}

SearchProgram programOf(const std::string& keys) {
  auto p = SearchProgram::compile(argsOf(keys));
  EXPECT_TRUE(p.ok());
  return std::move(*p);
}

const NumberOf kNoMsn = [](uint32_t) -> uint32_t { return 0; };

void check(SearchContext& c, std::vector<uint32_t> checked, std::vector<uint32_t> matching) {
  EXPECT_TRUE(c.setChecked(SearchScope{}, std::move(checked), std::move(matching)).isOk());
}

TEST(SearchContext, UidContextInMailboxOrder) {
  SearchContext c("B01", true, programOf("UNSEEN"), {3, 5, 9});
  EXPECT_EQ(c.results(), (std::vector<uint32_t>{3, 5, 9}));
  // 4 and 10 now match, 5 no longer does, 6 still does not: one line, removals first.
  check(c, {4, 5, 6, 10}, {4, 10});
  EXPECT_EQ(c.applyChecks(kNoMsn),
            "* ESEARCH (TAG \"B01\") UID REMOVEFROM (0 5) ADDTO (0 4,10)\r\n");
  EXPECT_EQ(c.results(), (std::vector<uint32_t>{3, 4, 9, 10}));
  // Checked again with no change: nothing to say.
  check(c, {3, 4}, {3, 4});
  EXPECT_EQ(c.applyChecks(kNoMsn), "");
  // Expunged: only the results leave, in one set.
  EXPECT_EQ(c.removeExpunged({2, 3, 4, 7}, kNoMsn),
            "* ESEARCH (TAG \"B01\") UID REMOVEFROM (0 3:4)\r\n");
  EXPECT_EQ(c.removeExpunged({2, 7}, kNoMsn), "");
  EXPECT_EQ(c.results(), (std::vector<uint32_t>{9, 10}));
  // Additions in a run become a range (RFC 5267 §4.3.3's preferred form).
  check(c, {11, 12, 13}, {11, 12, 13});
  EXPECT_EQ(c.applyChecks(kNoMsn), "* ESEARCH (TAG \"B01\") UID ADDTO (0 11:13)\r\n");
}

TEST(SearchContext, SequenceNumberContextUsesTheViewAtThatPoint) {
  std::map<uint32_t, uint32_t> msn = {{100, 1}, {105, 2}, {110, 3}, {120, 4}};
  NumberOf msn_of = [&](uint32_t uid) { return msn.count(uid) ? msn[uid] : 0u; };
  SearchContext c("a1", false, programOf("FLAGGED"), {105, 110});
  EXPECT_EQ(c.removeExpunged({105}, msn_of), "* ESEARCH (TAG \"a1\") REMOVEFROM (0 2)\r\n");
  // After the EXPUNGE the view renumbers; a new message 130 is number 4.
  msn = {{100, 1}, {110, 2}, {120, 3}, {130, 4}};
  check(c, {100, 130}, {100, 130});
  EXPECT_EQ(c.applyChecks(msn_of), "* ESEARCH (TAG \"a1\") ADDTO (0 1,4)\r\n");
  EXPECT_EQ(c.results(), (std::vector<uint32_t>{100, 110, 130}));
}

// A context with its own order (what CONTEXT=SORT supplies): positions, one pair per message,
// each valid once the earlier ones are applied (RFC 5267 §4.3.3-4.3.4).
TEST(SearchContext, SuppliedOrderReportsPositions) {
  auto newest_first = [](uint32_t a, uint32_t b) { return a > b; };
  SearchContext c("s1", true, programOf("ALL"), {3, 5, 9}, newest_first);
  EXPECT_EQ(c.results(), (std::vector<uint32_t>{9, 5, 3}));
  check(c, {4, 7, 9}, {4, 7});
  // 9 leaves position 1; then 7 goes to 1 (before 5), 4 to 3 (after 7 and 5, before 3).
  EXPECT_EQ(c.applyChecks(kNoMsn),
            "* ESEARCH (TAG \"s1\") UID REMOVEFROM (1 9) ADDTO (1 7 3 4)\r\n");
  EXPECT_EQ(c.results(), (std::vector<uint32_t>{7, 5, 4, 3}));
  // Expunging 5 and 3: 5 at position 2, then 3 at position 3 of what is left.
  EXPECT_EQ(c.removeExpunged({3, 5}, kNoMsn),
            "* ESEARCH (TAG \"s1\") UID REMOVEFROM (2 5 3 3)\r\n");
  EXPECT_EQ(c.results(), (std::vector<uint32_t>{7, 4}));
}

// A SORT context learns the keys of messages that join it before placing them; a failure
// to learn is the re-check's failure, and nothing is recorded.
TEST(SearchContext, LearnSeesTheMatchesBeforeTheyArePlaced) {
  std::map<uint32_t, int> key = {{3, 30}, {5, 10}};
  std::vector<uint32_t> told;
  bool fail = false;
  auto order = [&](uint32_t a, uint32_t b) {
    return key.at(a) < key.at(b) || (key.at(a) == key.at(b) && a < b);
  };
  auto learn = [&](const SearchScope&, std::span<const uint32_t> uids) -> base::Status {
    if (fail) return base::Status::ioError("cache unreadable");
    for (uint32_t u : uids) {
      told.push_back(u);
      key[u] = static_cast<int>(u) * 4;  // 7 -> 28, 8 -> 32
    }
    return base::Status::ok();
  };
  SearchContext c("k", true, programOf("ALL"), {3, 5}, order, learn);
  EXPECT_EQ(c.results(), (std::vector<uint32_t>{5, 3}));
  check(c, {7, 8, 9}, {7, 8});
  EXPECT_EQ(told, (std::vector<uint32_t>{7, 8}));
  EXPECT_EQ(c.applyChecks(kNoMsn), "* ESEARCH (TAG \"k\") UID ADDTO (2 7 4 8)\r\n");
  EXPECT_EQ(c.results(), (std::vector<uint32_t>{5, 7, 3, 8}));
  fail = true;
  EXPECT_FALSE(c.setChecked(SearchScope{}, {10}, {10}).isOk());
  EXPECT_EQ(c.applyChecks(kNoMsn), "");
}

TEST(SearchContexts, LimitTagsAndCancel) {
  SearchContexts all(2);
  EXPECT_TRUE(all.empty());
  all.add(std::make_unique<SearchContext>("a", true, programOf("ALL"), std::vector<uint32_t>{1}));
  EXPECT_FALSE(all.full());
  all.add(std::make_unique<SearchContext>("b", false, programOf("BODY x"), std::vector<uint32_t>{}));
  EXPECT_TRUE(all.full());
  EXPECT_TRUE(all.has("a"));
  EXPECT_FALSE(all.has("c"));
  EXPECT_EQ(all.cost(), 2);  // BODY reads message files: evaluate() goes to the blocking pool
  EXPECT_FALSE(all.cancel("c"));
  EXPECT_TRUE(all.cancel("b"));
  EXPECT_FALSE(all.has("b"));
  EXPECT_EQ(all.cost(), 0);
  EXPECT_FALSE(all.full());
  // Nothing re-checked, nothing expunged: no output.
  SearchScope scope;
  EXPECT_TRUE(all.evaluate(scope, {}).isOk());
  EXPECT_EQ(all.applyChecks(kNoMsn), "");
  EXPECT_EQ(all.removeExpunged({}, kNoMsn), "");
  EXPECT_EQ(all.removeExpunged({1}, kNoMsn), "* ESEARCH (TAG \"a\") UID REMOVEFROM (0 1)\r\n");
  all.clear();
  EXPECT_TRUE(all.empty());
}

// RFC 5267 §4.3: sequence numbers (and "*", and "$") mean what they meant when the command
// came; the context keeps them as the UIDs they named.
TEST(SearchContexts, SetsArePinnedToUids) {
  std::vector<std::pair<std::string, bool>> asked;
  ResolveSet resolve = [&](const proto::SequenceSet& set, bool by_uid) {
    asked.emplace_back(set.format(), by_uid);
    if (set.hasLastResult()) return std::vector<uint32_t>{};
    if (!by_uid) return std::vector<uint32_t>{10, 11};
    return std::vector<uint32_t>{15, 20};
  };
  SearchArgs pinned = pinSets(argsOf("1:2 UID 15:* OR $ SEEN"), resolve);
  EXPECT_EQ(describe(pinned), "UID 10:11 UID 15,20 OR UID  SEEN");
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_EQ(asked[0], (std::pair<std::string, bool>{"1:2", false}));
  EXPECT_EQ(asked[1], (std::pair<std::string, bool>{"15:*", true}));
  EXPECT_EQ(asked[2], (std::pair<std::string, bool>{"$", false}));
  // Keys without sets are left alone.
  EXPECT_EQ(describe(pinSets(argsOf("SUBJECT x UNSEEN"), resolve)), "SUBJECT \"x\" UNSEEN");
}

TEST(SearchContexts, TimeRelativeProgramsKnowTheirAges) {
  EXPECT_TRUE(programOf("UNSEEN SUBJECT x").ages().empty());
  EXPECT_EQ(programOf("YOUNGER 60").ages(), (std::vector<int64_t>{60}));
  std::vector<int64_t> both = programOf("OR SEEN (NOT OLDER 90) YOUNGER 5").ages();
  std::sort(both.begin(), both.end());
  EXPECT_EQ(both, (std::vector<int64_t>{5, 90}));
  SearchContexts none(0);  // search_contexts: 0 keeps no context at all
  EXPECT_TRUE(none.full());
}

}  // namespace
}  // namespace darius::imapd::search
