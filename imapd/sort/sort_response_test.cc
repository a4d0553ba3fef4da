// SORT and ESORT responses: order kept, MIN/MAX in sort order, ALL without descending ranges.
#include "imapd/sort/sort_response.h"

#include <gtest/gtest.h>

#include "imapd/search/search_response.h"

namespace darius::imapd::sort {
namespace {

using search::SearchMatch;

// Sequence numbers 5 3 4 1 2 with UIDs ten times them.
std::vector<SearchMatch> sorted() {
  return {{5, 50, 7}, {3, 30, 9}, {4, 40, 1}, {1, 10, 2}, {2, 20, 3}};
}

TEST(SortResponse, PlainSort) {
  search::SearchArgs a;
  EXPECT_EQ(formatSortResponse(a, "t", sorted()), "* SORT 5 3 4 1 2\r\n");
  EXPECT_EQ(formatSortResponse(a, "t", {}), "* SORT\r\n");
  a.by_uid = true;
  EXPECT_EQ(formatSortResponse(a, "t", sorted()), "* SORT 50 30 40 10 20\r\n");
  a.uses_modseq = true;
  EXPECT_EQ(formatSortResponse(a, "t", sorted()), "* SORT 50 30 40 10 20 (MODSEQ 9)\r\n");
  EXPECT_EQ(formatSortResponse(a, "t", {}), "* SORT\r\n");
}

TEST(SortResponse, EsortOptions) {
  search::SearchArgs a;
  a.has_return = true;
  EXPECT_EQ(formatSortResponse(a, "E01", sorted()), "* ESEARCH (TAG \"E01\") ALL 5,3:4,1:2\r\n");
  a.ret.min = a.ret.max = a.ret.count = true;
  EXPECT_EQ(formatSortResponse(a, "E01", sorted()),
            "* ESEARCH (TAG \"E01\") MIN 5 MAX 2 COUNT 5\r\n");
  EXPECT_EQ(formatSortResponse(a, "E01", {}), "* ESEARCH (TAG \"E01\") COUNT 0\r\n");
  a.by_uid = true;
  a.ret = {};
  a.ret.all = true;
  EXPECT_EQ(formatSortResponse(a, "x", sorted()), "* ESEARCH (TAG \"x\") UID ALL 50,30,40,10,20\r\n");
  a.ret = {};
  a.ret.save = true;
  EXPECT_EQ(formatSortResponse(a, "x", sorted()), "");
  a.ret.max = true;
  a.uses_modseq = true;
  EXPECT_EQ(formatSortResponse(a, "x", sorted()), "* ESEARCH (TAG \"x\") UID MAX 20 MODSEQ 3\r\n");
}

// RFC 9394 §3.1 with ESORT: the positions are in sort order, and so is the set.
TEST(SortResponse, PartialCountsPositionsInSortOrder) {
  search::SearchArgs a;
  a.has_return = true;
  a.by_uid = true;
  a.ret.partial = search::PartialRange{2, 4, false};
  EXPECT_EQ(formatSortResponse(a, "p", sorted()),
            "* ESEARCH (TAG \"p\") UID PARTIAL (2:4 30,40,10)\r\n");
  a.ret.partial = search::PartialRange{1, 2, true};
  EXPECT_EQ(formatSortResponse(a, "p", sorted()),
            "* ESEARCH (TAG \"p\") UID PARTIAL (-1:-2 10,20)\r\n");
  a.ret.partial = search::PartialRange{6, 9, false};
  a.ret.count = true;
  EXPECT_EQ(formatSortResponse(a, "p", sorted()),
            "* ESEARCH (TAG \"p\") UID COUNT 5 PARTIAL (6:9 NIL)\r\n");
  // UPDATE and CONTEXT ask for no data: ALL, as RETURN () would.
  a.ret = {};
  a.ret.update = a.ret.context = true;
  EXPECT_EQ(formatSortResponse(a, "u", sorted()),
            "* ESEARCH (TAG \"u\") UID ALL 50,30,40,10,20\r\n");
  // SAVE with PARTIAL keeps the window's messages (RFC 9394 §3.2, Table 1).
  search::ReturnOptions r;
  r.save = true;
  r.partial = search::PartialRange{1, 2, false};
  EXPECT_EQ(search::savedResult(r, sorted()).format(), "30,50");
}

TEST(SortResponse, OrderedSetNeverDescends) {
  EXPECT_EQ(orderedSet({}), "");
  EXPECT_EQ(orderedSet({7}), "7");
  EXPECT_EQ(orderedSet({10, 11, 12}), "10:12");
  EXPECT_EQ(orderedSet({12, 11, 10}), "12,11,10");
  EXPECT_EQ(orderedSet({1, 2, 9, 3, 4, 5}), "1:2,9,3:5");
}

TEST(SortResponse, SaveKeepsFirstAndLastInSortOrder) {
  search::ReturnOptions r;
  r.min = true;
  r.save = true;
  EXPECT_EQ(search::savedResult(r, sorted()).format(), "50");
  r.max = true;
  EXPECT_EQ(search::savedResult(r, sorted()).format(), "20,50");
  r.count = true;
  EXPECT_EQ(search::savedResult(r, sorted()).format(), "10,20,30,40,50");
}

}  // namespace
}  // namespace darius::imapd::sort
