// A live SORT context's order: keys from the SORT's outcome, ties in UID order, messages
// that join later placed by their own keys once learned, and an unknown UID sorting as an
// empty message would.
#include "imapd/sort/sort_context.h"

#include <gtest/gtest.h>

#include <vector>

namespace darius::imapd::sort {
namespace {

MessageKeys keysWith(uint32_t uid, uint32_t msn, int64_t sent, uint64_t size) {
  MessageKeys k;
  k.match.uid = uid;
  k.match.msn = msn;
  k.sent = sent;
  k.size = size;
  return k;
}

TEST(SortOrder, KeysThenUidOrder) {
  // REVERSE DATE, then SIZE; the msn the SORT saw is replaced by the UID.
  std::vector<SortCriterion> c = {{SortKey::kDate, true}, {SortKey::kSize, false}};
  std::vector<MessageKeys> keys = {keysWith(10, 9, 100, 5), keysWith(20, 1, 100, 5),
                                   keysWith(30, 2, 200, 1), keysWith(40, 3, 100, 2)};
  SortOrder order(c, keys);
  EXPECT_EQ(order.size(), 4u);
  EXPECT_TRUE(order.before(30, 10));  // later date first
  EXPECT_TRUE(order.before(40, 10));  // same date, smaller size
  EXPECT_TRUE(order.before(10, 20));  // all keys equal: UID order, not the old msn
  EXPECT_FALSE(order.before(20, 10));
  EXPECT_FALSE(order.before(10, 10));  // strict
  // Never learned: sent 0, size 0, so last for REVERSE DATE; among such, UID order.
  EXPECT_TRUE(order.before(10, 99));
  EXPECT_TRUE(order.before(98, 99));
  auto as_order = contextOrder(std::make_shared<SortOrder>(c, keys));
  EXPECT_TRUE(as_order(30, 10));
}

TEST(SortOrder, LearnWithoutAMailboxIsANoOp) {
  auto order = std::make_shared<SortOrder>(std::vector<SortCriterion>{{SortKey::kSize, false}},
                                           std::vector<MessageKeys>{});
  auto learn = contextLearn(order);
  std::vector<uint32_t> uids = {1, 2};
  EXPECT_TRUE(learn(search::SearchScope{}, uids).isOk());
  EXPECT_EQ(order->size(), 0u);
}

}  // namespace
}  // namespace darius::imapd::sort
