// The SEARCH and ESEARCH responses (RFC 3501 §7.2.5, RFC 9051 §7.3.4, RFC 4731, RFC 7162
// §3.1.6 and §3.1.10) and the value SAVE keeps (RFC 5182 §2.4, RFC 9051 Table 4), on the
// examples of the RFCs.
#include "imapd/search/search_response.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace darius::imapd::search {
namespace {

// "MIN COUNT" -> those options.
ReturnOptions ret(std::string_view words) {
  ReturnOptions r;
  r.min = words.find("MIN") != std::string_view::npos;
  r.max = words.find("MAX") != std::string_view::npos;
  r.all = words.find("ALL") != std::string_view::npos;
  r.count = words.find("COUNT") != std::string_view::npos;
  r.save = words.find("SAVE") != std::string_view::npos;
  return r;
}

SearchArgs argsWith(bool by_uid, bool has_return, ReturnOptions ret, bool modseq = false) {
  SearchArgs a;
  a.by_uid = by_uid;
  a.has_return = has_return;
  a.ret = ret;
  a.uses_modseq = modseq;
  return a;
}

// Matches at sequence numbers `msns`; UID = 100 + msn, modseq given or 1000 + msn.
std::vector<SearchMatch> at(std::vector<uint32_t> msns, std::vector<uint64_t> modseqs = {}) {
  std::vector<SearchMatch> out;
  for (size_t i = 0; i < msns.size(); ++i) {
    out.push_back({msns[i], 100 + msns[i], i < modseqs.size() ? modseqs[i] : 1000 + msns[i]});
  }
  return out;
}

std::string esearch(const SearchArgs& a, const std::vector<SearchMatch>& m) {
  return formatSearchResponse(a, ResponseStyle{true, "A282"}, m);
}

TEST(SearchResponse, Imap4rev1SearchResponse) {
  SearchArgs a = argsWith(false, false, ret(""));
  ResponseStyle rev1{false, "t"};
  EXPECT_EQ(formatSearchResponse(a, rev1, at({2, 84, 882})), "* SEARCH 2 84 882\r\n");
  EXPECT_EQ(formatSearchResponse(a, rev1, {}), "* SEARCH\r\n");
  SearchArgs u = argsWith(true, false, ret(""));
  EXPECT_EQ(formatSearchResponse(u, rev1, at({1, 2})), "* SEARCH 101 102\r\n");
  // RFC 7162 §3.1.6: the highest modseq of the matches, not when nothing matched.
  SearchArgs m = argsWith(false, false, ret(""), true);
  EXPECT_EQ(formatSearchResponse(m, rev1, at({2, 5, 6}, {7, 917162500, 9})),
            "* SEARCH 2 5 6 (MODSEQ 917162500)\r\n");
  EXPECT_EQ(formatSearchResponse(m, rev1, {}), "* SEARCH\r\n");
}

TEST(SearchResponse, EsearchOptions) {
  EXPECT_FALSE(wantsEsearch(argsWith(false, false, ret("")), false));
  EXPECT_TRUE(wantsEsearch(argsWith(false, false, ret("")), true));
  EXPECT_TRUE(wantsEsearch(argsWith(false, true, ret("")), false));

  // RFC 9051 §6.4.4 examples.
  EXPECT_EQ(esearch(argsWith(false, true, ret("MIN COUNT")), at({2, 10, 11})),
            "* ESEARCH (TAG \"A282\") MIN 2 COUNT 3\r\n");
  EXPECT_EQ(esearch(argsWith(false, true, ret("")), at({2, 10, 11})),
            "* ESEARCH (TAG \"A282\") ALL 2,10:11\r\n");
  EXPECT_EQ(esearch(argsWith(false, false, ret("")), at({2, 10, 11})),  // IMAP4rev2, no RETURN
            "* ESEARCH (TAG \"A282\") ALL 2,10:11\r\n");
  EXPECT_EQ(esearch(argsWith(false, false, ret("")), {}), "* ESEARCH (TAG \"A282\")\r\n");
  EXPECT_EQ(esearch(argsWith(true, true, ret("MIN MAX")), at({1, 5})),
            "* ESEARCH (TAG \"A282\") UID MIN 101 MAX 105\r\n");
  EXPECT_EQ(esearch(argsWith(false, true, ret("COUNT")), {}),
            "* ESEARCH (TAG \"A282\") COUNT 0\r\n");
  // Nothing matched: MIN, MAX and ALL are left out, the response still goes out.
  EXPECT_EQ(esearch(argsWith(false, true, ret("MIN MAX ALL")), {}),
            "* ESEARCH (TAG \"A282\")\r\n");
  EXPECT_EQ(esearch(argsWith(false, true, ret("MIN MAX ALL COUNT")),
                    at({3, 4, 5, 9})),
            "* ESEARCH (TAG \"A282\") MIN 3 MAX 9 COUNT 4 ALL 3:5,9\r\n");
  // SAVE alone: no ESEARCH; SAVE with others: as without it.
  EXPECT_EQ(esearch(argsWith(false, true, ret("SAVE")), at({1})), "");
  EXPECT_EQ(esearch(argsWith(false, true, ret("MIN SAVE")), at({2, 10})),
            "* ESEARCH (TAG \"A282\") MIN 2\r\n");
  // A tag is always a valid quoted string's content.
  EXPECT_EQ(formatSearchResponse(argsWith(false, true, ret("COUNT")),
                                 ResponseStyle{true, "a.b[1]"}, {}),
            "* ESEARCH (TAG \"a.b[1]\") COUNT 0\r\n");
}

TEST(SearchResponse, EsearchModseq) {
  // RFC 4731 §3.2: MIN or MAX alone, the modseq of that message; MIN and MAX, the higher of
  // the two; otherwise the highest of all.
  std::vector<SearchMatch> m = at({2, 5, 23}, {917162488, 917162500, 907162321});
  EXPECT_EQ(esearch(argsWith(false, true, ret("MIN"), true), m),
            "* ESEARCH (TAG \"A282\") MIN 2 MODSEQ 917162488\r\n");
  EXPECT_EQ(esearch(argsWith(false, true, ret("MAX"), true), m),
            "* ESEARCH (TAG \"A282\") MAX 23 MODSEQ 907162321\r\n");
  EXPECT_EQ(esearch(argsWith(false, true, ret("MIN MAX"), true), m),
            "* ESEARCH (TAG \"A282\") MIN 2 MAX 23 MODSEQ 917162488\r\n");
  EXPECT_EQ(esearch(argsWith(false, true, ret("MIN COUNT"), true), m),
            "* ESEARCH (TAG \"A282\") MIN 2 COUNT 3 MODSEQ 917162500\r\n");
  EXPECT_EQ(esearch(argsWith(false, true, ret("ALL"), true), at({1, 2, 3, 5}, {1, 1236, 3, 4})),
            "* ESEARCH (TAG \"A282\") ALL 1:3,5 MODSEQ 1236\r\n");
  EXPECT_EQ(esearch(argsWith(false, true, ret("ALL"), true), {}), "* ESEARCH (TAG \"A282\")\r\n");
}

TEST(SearchResponse, SavedResultFollowsTable4) {
  std::vector<SearchMatch> m = at({2, 10, 11, 12, 21});  // UIDs 102 110 111 112 121
  EXPECT_EQ(savedResult(ret("SAVE"), m).format(), "102,110:112,121");
  EXPECT_EQ(savedResult(ret("ALL SAVE"), m).format(), "102,110:112,121");
  EXPECT_EQ(savedResult(ret("MIN SAVE"), m).format(), "102");
  EXPECT_EQ(savedResult(ret("MAX SAVE"), m).format(), "121");
  EXPECT_EQ(savedResult(ret("MIN MAX SAVE"), m).format(), "102,121");
  EXPECT_EQ(savedResult(ret("MIN MAX COUNT SAVE"), m).format(),
            "102,110:112,121");
  EXPECT_EQ(savedResult(ret("MIN ALL SAVE"), m).format(), "102,110:112,121");
  EXPECT_TRUE(savedResult(ret("MIN SAVE"), {}).empty());
  EXPECT_TRUE(savedResult(ret("SAVE"), {}).empty());
}

ReturnOptions withPartial(std::string_view words, uint32_t first, uint32_t last, bool from_end) {
  ReturnOptions r = ret(words);
  r.partial = PartialRange{first, last, from_end};
  r.update = words.find("UPDATE") != std::string_view::npos;
  return r;
}

// RFC 9394 §3.1: positions from the start or (negative) from the end, clipped to what exists.
TEST(SearchResponse, PartialWindow) {
  auto win = [](uint32_t a, uint32_t b, bool neg, size_t n) {
    Window w = partialWindow(PartialRange{a, b, neg}, n);
    return w.empty() ? std::string("empty") : std::to_string(w.begin) + "-" + std::to_string(w.end);
  };
  EXPECT_EQ(win(1, 3, false, 10), "0-3");
  EXPECT_EQ(win(3, 1, false, 10), "0-3");
  EXPECT_EQ(win(8, 20, false, 10), "7-10");
  EXPECT_EQ(win(11, 20, false, 10), "empty");
  EXPECT_EQ(win(10, 10, false, 10), "9-10");
  EXPECT_EQ(win(1, 1, true, 10), "9-10");    // -1: the last
  EXPECT_EQ(win(1, 3, true, 10), "7-10");    // -1:-3: the last three
  EXPECT_EQ(win(3, 1, true, 10), "7-10");    // -3:-1 is the same
  EXPECT_EQ(win(5, 20, true, 10), "0-6");    // -5:-20 spans the start
  EXPECT_EQ(win(11, 12, true, 10), "empty");
  EXPECT_EQ(win(1, 4294967295u, false, 0), "empty");
  EXPECT_EQ(win(1, 4294967295u, true, 3), "0-3");
  EXPECT_EQ(formatPartialRange(PartialRange{1, 100, true}), "-1:-100");
  EXPECT_EQ(formatPartialRange(PartialRange{500, 400, false}), "500:400");
}

TEST(SearchResponse, EsearchPartial) {
  std::vector<SearchMatch> m = at({2, 3, 4, 10, 11, 20});  // UIDs 102:104,110:111,120
  // RFC 9394 §3.1 examples: the range as sent, the results, NIL beyond the end.
  EXPECT_EQ(esearch(argsWith(true, true, withPartial("", 1, 3, false)), m),
            "* ESEARCH (TAG \"A282\") UID PARTIAL (1:3 102:104)\r\n");
  EXPECT_EQ(esearch(argsWith(true, true, withPartial("", 1, 2, true)), m),
            "* ESEARCH (TAG \"A282\") UID PARTIAL (-1:-2 111,120)\r\n");
  EXPECT_EQ(esearch(argsWith(false, true, withPartial("", 5, 100, false)), m),
            "* ESEARCH (TAG \"A282\") PARTIAL (5:100 11,20)\r\n");
  EXPECT_EQ(esearch(argsWith(false, true, withPartial("", 7, 9, false)), m),
            "* ESEARCH (TAG \"A282\") PARTIAL (7:9 NIL)\r\n");
  EXPECT_EQ(esearch(argsWith(false, true, withPartial("", 1, 9, false)), {}),
            "* ESEARCH (TAG \"A282\") PARTIAL (1:9 NIL)\r\n");
  // With the others (§3.2): MIN, MAX and COUNT as usual, SAVE changes nothing.
  EXPECT_EQ(esearch(argsWith(false, true, withPartial("MIN MAX COUNT SAVE", 2, 3, false)), m),
            "* ESEARCH (TAG \"A282\") MIN 2 MAX 20 COUNT 6 PARTIAL (2:3 3:4)\r\n");
  EXPECT_EQ(esearch(argsWith(false, true, withPartial("MIN", 2, 3, false)), {}),
            "* ESEARCH (TAG \"A282\") PARTIAL (2:3 NIL)\r\n");
  // UPDATE and CONTEXT ask for nothing (RFC 5267 §4.3): alone they mean ALL, like RETURN ().
  ReturnOptions update;
  update.update = true;
  update.context = true;
  EXPECT_EQ(esearch(argsWith(true, true, update), m),
            "* ESEARCH (TAG \"A282\") UID ALL 102:104,110:111,120\r\n");
  ReturnOptions save_update = update;
  save_update.save = true;
  EXPECT_EQ(esearch(argsWith(true, true, save_update), m), "");
}

// RFC 9394 §3.2, Table 1.
TEST(SearchResponse, SavedResultWithPartialFollowsTable1) {
  std::vector<SearchMatch> m = at({2, 10, 11, 12, 21});  // UIDs 102 110 111 112 121
  EXPECT_EQ(savedResult(withPartial("SAVE", 2, 3, false), m).format(), "110:111");
  EXPECT_EQ(savedResult(withPartial("SAVE", 1, 1, true), m).format(), "121");
  EXPECT_EQ(savedResult(withPartial("MIN SAVE", 2, 3, false), m).format(), "102,110:111");
  EXPECT_EQ(savedResult(withPartial("MAX SAVE", 2, 3, false), m).format(), "110:111,121");
  EXPECT_EQ(savedResult(withPartial("MIN MAX SAVE", 2, 3, false), m).format(),
            "102,110:111,121");
  EXPECT_EQ(savedResult(withPartial("COUNT SAVE", 2, 3, false), m).format(),
            "102,110:112,121");
  EXPECT_EQ(savedResult(withPartial("MIN COUNT SAVE", 2, 3, false), m).format(),
            "102,110:112,121");
  EXPECT_TRUE(savedResult(withPartial("SAVE", 9, 10, false), m).empty());
  EXPECT_EQ(savedResult(withPartial("MIN SAVE", 9, 10, false), m).format(), "102");
}

}  // namespace
}  // namespace darius::imapd::search
