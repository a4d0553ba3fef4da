// The sort key cache: what was remembered comes back for the keys remembered and only those,
// per mailbox and UIDVALIDITY; THREAD's inputs beside them; the byte budget drops the mailbox sorted least recently and
// stops a mailbox that alone fills it; 0 keeps nothing; concurrent use from many threads.
// (That a SORT answers the same from the cache as without it is in tests/protocol/test_imap_sort.)
#include "imapd/sort/sort_key_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace darius::imapd::sort {
namespace {

const std::vector<SortCriterion> kByDate = {{SortKey::kDate, false}};
const std::vector<SortCriterion> kBySubjectFrom = {{SortKey::kSubject, false}, {SortKey::kFrom, true}};

std::vector<search::SearchMatch> matchesOf(uint32_t first, uint32_t n) {
  std::vector<search::SearchMatch> out;
  for (uint32_t i = 0; i < n; ++i) out.push_back({i + 1, first + i, 100 + i});
  return out;
}

MessageKeys keysFor(const search::SearchMatch& m) {
  MessageKeys k;
  k.match = m;
  k.arrival = 1000 + m.uid;
  k.sent = 2000 + m.uid;
  k.size = 3000 + m.uid;
  k.text[0] = "a subject long enough to leave the small-string buffer " + std::to_string(m.uid);
  k.text[1] = "from" + std::to_string(m.uid);
  return k;
}

std::vector<MessageKeys> keysFor(const std::vector<search::SearchMatch>& ms) {
  std::vector<MessageKeys> out;
  for (const auto& m : ms) out.push_back(keysFor(m));
  return out;
}

TEST(SortKeyCache, RemembersTheKeysItWasGivenAndOnlyThose) {
  SortKeyCache cache(1 << 20);
  auto ms = matchesOf(10, 5);
  std::vector<MessageKeys> keys;
  EXPECT_EQ(cache.lookup("/box", 7, kByDate, ms, keys).size(), 5u);
  cache.remember("/box", 7, kByDate, keysFor(ms));
  EXPECT_TRUE(cache.lookup("/box", 7, kByDate, ms, keys).empty());
  for (size_t i = 0; i < ms.size(); ++i) {
    EXPECT_EQ(keys[i].match, ms[i]);
    EXPECT_EQ(keys[i].sent, 2000 + ms[i].uid);
    EXPECT_EQ(keys[i].arrival, 1000 + ms[i].uid);
    EXPECT_EQ(keys[i].size, 3000u + ms[i].uid);
  }
  // SUBJECT and FROM were never read: missing until remembered, then both there.
  EXPECT_EQ(cache.lookup("/box", 7, kBySubjectFrom, ms, keys).size(), 5u);
  cache.remember("/box", 7, kBySubjectFrom, keysFor(ms));
  EXPECT_TRUE(cache.lookup("/box", 7, kBySubjectFrom, ms, keys).empty());
  EXPECT_EQ(keys[2].text[0], keysFor(ms[2]).text[0]);
  EXPECT_EQ(keys[2].text[1], "from12");
  EXPECT_TRUE(cache.lookup("/box", 7, kByDate, ms, keys).empty());
  // Another UIDVALIDITY is another mailbox; so is another directory; an unknown UID misses.
  EXPECT_EQ(cache.lookup("/box", 8, kByDate, ms, keys).size(), 5u);
  EXPECT_EQ(cache.lookup("/other", 7, kByDate, ms, keys).size(), 5u);
  auto more = matchesOf(14, 3);  // 14 known, 15 and 16 not
  EXPECT_EQ(cache.lookup("/box", 7, kByDate, more, keys), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(cache.mailboxes(), 1u);
  EXPECT_GT(cache.bytes(), 0u);
}

TEST(SortKeyCache, TheBudgetDropsTheMailboxSortedLeastRecently) {
  auto ms = matchesOf(1, 100);
  SortKeyCache sizing(1 << 30);
  sizing.remember("/a", 1, kBySubjectFrom, keysFor(ms));
  const size_t one = sizing.bytes();
  SortKeyCache cache(one * 2 + one / 2);  // room for two mailboxes of this size
  std::vector<MessageKeys> keys;
  cache.remember("/a", 1, kBySubjectFrom, keysFor(ms));
  cache.remember("/b", 1, kBySubjectFrom, keysFor(ms));
  EXPECT_TRUE(cache.lookup("/a", 1, kBySubjectFrom, ms, keys).empty());  // a is now the newer
  cache.remember("/c", 1, kBySubjectFrom, keysFor(ms));                  // b goes
  EXPECT_EQ(cache.mailboxes(), 2u);
  EXPECT_TRUE(cache.lookup("/a", 1, kBySubjectFrom, ms, keys).empty());
  EXPECT_TRUE(cache.lookup("/c", 1, kBySubjectFrom, ms, keys).empty());
  EXPECT_EQ(cache.lookup("/b", 1, kBySubjectFrom, ms, keys).size(), 100u);
  EXPECT_LE(cache.bytes(), one * 2 + one / 2);
  // A mailbox bigger than the whole budget keeps what fits and stops there.
  SortKeyCache small(one / 2);
  small.remember("/big", 1, kBySubjectFrom, keysFor(ms));
  size_t missing = small.lookup("/big", 1, kBySubjectFrom, ms, keys).size();
  EXPECT_GT(missing, 0u);
  EXPECT_LT(missing, 100u);
  EXPECT_LE(small.bytes(), one / 2);
}

// THREAD's inputs share the entries: kept and returned whole (without the caller's id), and a
// message known only to THREAD is still a miss for SORT (its record keys were never read).
TEST(SortKeyCache, ThreadInputsShareTheEntries) {
  SortKeyCache cache(1 << 20);
  auto ms = matchesOf(10, 3);
  std::vector<thread::ThreadMessage> inputs(2);
  inputs[0].id = 5;
  inputs[0].message_id = "<a-long-enough-message-id@example.com>";
  inputs[0].references = {"<r1@example.com>", "<r2@example.com>"};
  inputs[0].base_subject = "lunch";
  inputs[0].reply_or_fwd = true;
  inputs[0].sent_date = 42;
  inputs[1].message_id = "<b@x>";
  std::vector<thread::ThreadMessage> out;
  EXPECT_EQ(cache.lookupThread("/box", 1, ms, out).size(), 3u);
  cache.rememberThread("/box", 1, {10, 11}, inputs);
  EXPECT_EQ(cache.lookupThread("/box", 1, ms, out), (std::vector<size_t>{2}));
  EXPECT_EQ(out[0].id, 0u);
  EXPECT_EQ(out[0].message_id, inputs[0].message_id);
  EXPECT_EQ(out[0].references, inputs[0].references);
  EXPECT_EQ(out[0].base_subject, "lunch");
  EXPECT_TRUE(out[0].reply_or_fwd);
  EXPECT_EQ(out[0].sent_date, 42);
  EXPECT_EQ(out[1].message_id, "<b@x>");
  std::vector<MessageKeys> keys;
  const std::vector<SortCriterion> by_arrival = {{SortKey::kArrival, false}};
  EXPECT_EQ(cache.lookup("/box", 1, by_arrival, ms, keys).size(), 3u);
  cache.remember("/box", 1, by_arrival, keysFor(ms));
  EXPECT_TRUE(cache.lookup("/box", 1, by_arrival, ms, keys).empty());
  EXPECT_EQ(keys[1].arrival, 1011);
  EXPECT_EQ(cache.lookupThread("/box", 1, ms, out), (std::vector<size_t>{2}));
}

TEST(SortKeyCache, ZeroKeepsNothing) {
  SortKeyCache cache(0);
  auto ms = matchesOf(1, 3);
  std::vector<MessageKeys> keys;
  cache.remember("/a", 1, kByDate, keysFor(ms));
  EXPECT_EQ(cache.lookup("/a", 1, kByDate, ms, keys).size(), 3u);
  EXPECT_EQ(cache.bytes(), 0u);
}

TEST(SortKeyCache, ManyThreadsManyMailboxesWithinTheBudget) {
  auto ms = matchesOf(1, 200);
  SortKeyCache sizing(1 << 30);
  sizing.remember("/x", 1, kBySubjectFrom, keysFor(ms));
  const size_t budget = sizing.bytes() * 3;
  SortKeyCache cache(budget);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<MessageKeys> keys;
      for (int round = 0; round < 50; ++round) {
        std::string box = "/box" + std::to_string((t + round) % 6);
        auto missing = cache.lookup(box, 1, kBySubjectFrom, ms, keys);
        for (size_t i = 0; i < ms.size(); ++i) {
          bool hit = std::find(missing.begin(), missing.end(), i) == missing.end();
          if (hit) {
            ASSERT_EQ(keys[i].text[1], "from" + std::to_string(ms[i].uid));
          }
        }
        cache.remember(box, 1, kBySubjectFrom, keysFor(ms));
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_LE(cache.bytes(), budget);
  EXPECT_LE(cache.mailboxes(), 6u);
}

}  // namespace
}  // namespace darius::imapd::sort
