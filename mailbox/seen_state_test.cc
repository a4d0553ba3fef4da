#include "mailbox/seen_state.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace darius::mailbox {
namespace {

using base::Code;

SeenState decoded(std::string_view v) {
  auto s = SeenState::decode(v, SeenLimits{});
  EXPECT_TRUE(s.ok()) << v << ": " << s.status().toString();
  return s.ok() ? *s : SeenState();
}

std::vector<uint32_t> seq(uint32_t first, uint32_t last) {
  std::vector<uint32_t> out;
  for (uint32_t u = first; u <= last; ++u) out.push_back(u);
  return out;
}

TEST(SeenState, EmptyEncodesAsDashes) {
  SeenState s;
  EXPECT_EQ(s.encode(), "1 0 - -");
  EXPECT_EQ(decoded("1 0 - -"), s);
  EXPECT_FALSE(s.isSeen(1));
  EXPECT_EQ(s.modseqOf(1), 0u);
}

TEST(SeenState, SetSeenKeepsCanonicalRanges) {
  SeenState s;
  EXPECT_EQ(s.setSeen(seq(1, 3), true), seq(1, 3));
  EXPECT_EQ(s.setSeen(std::vector<uint32_t>{5, 7}, true), (std::vector<uint32_t>{5, 7}));
  EXPECT_EQ(s.setSeen(std::vector<uint32_t>{4, 5, 6}, true), (std::vector<uint32_t>{4, 6}));
  ASSERT_EQ(s.seen().size(), 1u);
  EXPECT_EQ(s.seen()[0], (UidRange{1, 7}));
  EXPECT_EQ(s.setSeen(std::vector<uint32_t>{2, 6, 9}, false), (std::vector<uint32_t>{2, 6}));
  EXPECT_EQ(s.seen(), (std::vector<UidRange>{{1, 1}, {3, 5}, {7, 7}}));
  EXPECT_TRUE(s.isSeen(1));
  EXPECT_FALSE(s.isSeen(2));
  EXPECT_TRUE(s.isSeen(4));
  EXPECT_FALSE(s.isSeen(8));
  // Nothing to change: nothing reported.
  EXPECT_TRUE(s.setSeen(std::vector<uint32_t>{1, 4}, true).empty());
  EXPECT_EQ(s.countSeen(seq(1, 10)), 5u);
}

TEST(SeenState, HighestUidsWork) {
  SeenState s;
  std::vector<uint32_t> top = {UINT32_MAX - 1, UINT32_MAX};
  EXPECT_EQ(s.setSeen(top, true).size(), 2u);
  s.noteChange(top, 9, 4);
  EXPECT_EQ(s.encode(), "1 0 4294967294:4294967295 4294967294:4294967295=9");
  EXPECT_EQ(decoded(s.encode()), s);
  EXPECT_EQ(s.setSeen(std::vector<uint32_t>{UINT32_MAX}, false).size(), 1u);
  EXPECT_TRUE(s.isSeen(UINT32_MAX - 1));
  EXPECT_FALSE(s.isSeen(UINT32_MAX));
}

TEST(SeenState, NoteChangeOverridesOlderRuns) {
  SeenState s;
  s.noteChange(seq(1, 10), 5, 100);
  s.noteChange(std::vector<uint32_t>{4, 5}, 7, 100);
  EXPECT_EQ(s.runs(), (std::vector<ModseqRun>{{1, 3, 5}, {4, 5, 7}, {6, 10, 5}}));
  EXPECT_EQ(s.modseqOf(3), 5u);
  EXPECT_EQ(s.modseqOf(4), 7u);
  EXPECT_EQ(s.modseqOf(11), 0u);
  EXPECT_EQ(s.highestModseq(), 7u);
  s.noteChange(seq(1, 10), 8, 100);
  EXPECT_EQ(s.runs(), (std::vector<ModseqRun>{{1, 10, 8}}));
}

TEST(SeenState, ApplyTakesSeenAndTheHigherModseq) {
  SeenState s;
  s.setSeen(std::vector<uint32_t>{2}, true);
  s.noteChange(std::vector<uint32_t>{2}, 50, 10);
  IndexRecord r;
  r.uid = 2;
  r.modseq = 40;
  r.system_flags = kFlagFlagged;
  s.apply(r);
  EXPECT_EQ(r.system_flags, kFlagFlagged | kFlagSeen);
  EXPECT_EQ(r.modseq, 50u);
  // The owner's \Seen in the index means nothing to this user.
  IndexRecord o;
  o.uid = 3;
  o.modseq = 60;
  o.system_flags = kFlagSeen;
  s.apply(o);
  EXPECT_EQ(o.system_flags, 0u);
  EXPECT_EQ(o.modseq, 60u);
}

TEST(SeenState, CoarseningMergesTheOldestNeighboursAndOnlyRaisesModseqs) {
  SeenState s;
  // Ten single-UID changes, each newer than the last, on UIDs 1, 3, 5, ...
  for (uint32_t i = 0; i < 10; ++i) {
    s.noteChange(std::vector<uint32_t>{1 + 2 * i}, 100 + i, 4);
    ASSERT_LE(s.runs().size(), 4u);
  }
  // The newest change keeps its own modseq; merged runs took the higher one of each pair.
  EXPECT_EQ(s.modseqOf(19), 109u);
  for (uint32_t i = 0; i < 10; ++i) EXPECT_GE(s.modseqOf(1 + 2 * i), 100 + i) << i;
  // Canonical after coarsening: it survives a round trip.
  EXPECT_EQ(decoded(s.encode()), s);
}

// A model check: random changes against a plain set and map. The state must agree with the
// set exactly and never report a modseq below the last change of a UID.
TEST(SeenState, RandomChangesAgreeWithAModel) {
  std::mt19937 rng(17);
  for (size_t max_runs : {1u, 3u, 16u, 512u}) {
    SeenState s;
    std::set<uint32_t> model;
    std::map<uint32_t, uint64_t> last;
    std::map<uint32_t, uint64_t> reported;  // what the state said before: never lower later
    uint64_t modseq = 1;
    for (int step = 0; step < 300; ++step) {
      std::set<uint32_t> pick;
      int n = 1 + static_cast<int>(rng() % 8);
      for (int i = 0; i < n; ++i) pick.insert(1 + rng() % 60);
      std::vector<uint32_t> uids(pick.begin(), pick.end());
      bool seen = rng() % 3 != 0;
      std::vector<uint32_t> changed = s.setSeen(uids, seen);
      for (uint32_t u : uids) {
        bool was = model.count(u) != 0;
        EXPECT_EQ(std::binary_search(changed.begin(), changed.end(), u), was != seen);
        if (seen) model.insert(u); else model.erase(u);
      }
      if (!changed.empty()) {
        ++modseq;
        s.noteChange(changed, modseq, max_runs);
        for (uint32_t u : changed) last[u] = modseq;
      }
      ASSERT_LE(s.runs().size(), max_runs);
      for (uint32_t u = 1; u <= 61; ++u) {
        ASSERT_EQ(s.isSeen(u), model.count(u) != 0) << u;
        uint64_t m = s.modseqOf(u);
        if (last.count(u)) {
          ASSERT_GE(m, last[u]) << u;
        }
        ASSERT_LE(m, modseq);
        ASSERT_GE(m, reported[u]) << "modseq of " << u << " went down";
        reported[u] = m;
      }
      auto back = SeenState::decode(s.encode(), SeenLimits{});
      ASSERT_TRUE(back.ok()) << s.encode();
      ASSERT_EQ(*back, s);
    }
  }
}

TEST(SeenState, DecodesTheDocumentedExample) {
  SeenState s = decoded("1 1700000000 1:20,23,25:40 1:20=57,23=60,25:40=61");
  EXPECT_EQ(s.lastChange(), 1700000000);
  EXPECT_TRUE(s.isSeen(20));
  EXPECT_FALSE(s.isSeen(21));
  EXPECT_TRUE(s.isSeen(23));
  EXPECT_EQ(s.modseqOf(23), 60u);
  EXPECT_EQ(s.modseqOf(24), 0u);
  EXPECT_EQ(s.encode(), "1 1700000000 1:20,23,25:40 1:20=57,23=60,25:40=61");
}

TEST(SeenState, HostileValuesAreClearErrors) {
  const char* bad[] = {
      "",                       // empty
      "1",                      // one field
      "1 0 -",                  // three fields
      "1 0 - - -",              // five fields
      "1  0 - -",               // empty field
      "x 0 - -",                // version not a number
      "01 0 - -",               // leading zero
      "1 -5 - -",               // negative time
      "1 00 - -",               // leading zero in time
      "1 9223372036854775808 - -",  // time over int64
      "1 0 0 -",                // UID 0
      "1 0 4294967296 -",       // UID over 32 bits
      "1 0 5:3 -",              // reversed range
      "1 0 3:3 -",              // a one-UID range written as a range
      "1 0 3,2 -",              // out of order
      "1 0 1:3,3 -",            // overlapping
      "1 0 1:3,4 -",            // adjacent (not canonical)
      "1 0 1, -",               // empty element
      "1 0 ,1 -",
      "1 0 1:2:3 -",
      "1 0 +1 -",
      "1 0 1 1",                // run without modseq
      "1 0 1 1=",               // empty modseq
      "1 0 1 1=0",              // modseq 0
      "1 0 1 1=9223372036854775808",  // modseq over 63 bits
      "1 0 1 1=5,1=6",          // overlapping runs
      "1 0 1 1=5,2=5",          // adjacent runs with one modseq
      "1 0 1 2=5,1=6",          // out of order runs
      "1 0 - -\n",              // trailing byte
      "1 0 -- -",
  };
  for (const char* v : bad) {
    auto s = SeenState::decode(v, SeenLimits{});
    EXPECT_FALSE(s.ok()) << "'" << v << "'";
    if (!s.ok()) {
      EXPECT_EQ(s.status().code(), Code::kCorruption) << v;
    }
  }
  auto nul = SeenState::decode(std::string("1 0 1\0 -", 8), SeenLimits{});
  EXPECT_EQ(nul.status().code(), Code::kCorruption);
  // A newer version is refused as such, not misread.
  auto newer = SeenState::decode("2 0 - - extra", SeenLimits{});
  EXPECT_EQ(newer.status().code(), Code::kNotSupported);
}

TEST(SeenState, OversizedValuesAreRefusedBeforeParsing) {
  SeenLimits small;
  small.max_value_bytes = 64;
  std::string big = "1 0 ";
  for (uint32_t u = 1; u < 1000; u += 2) big += std::to_string(u) + ",";
  big.back() = ' ';
  big += "-";
  auto s = SeenState::decode(big, small);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kCorruption);
  EXPECT_NE(s.status().message().find("seen_max_size"), std::string::npos);
  EXPECT_TRUE(SeenState::decode(big, SeenLimits{}).ok());
}

TEST(SeenState, AHugeAlternatingSetIsLinear) {
  // 200,000 alternate UIDs: one pass each way, no quadratic behaviour (this runs in well
  // under a second; a per-UID insert into the range vector would take minutes).
  std::vector<uint32_t> odd;
  for (uint32_t u = 1; u <= 400000; u += 2) odd.push_back(u);
  SeenState s;
  EXPECT_EQ(s.setSeen(odd, true).size(), odd.size());
  EXPECT_EQ(s.seen().size(), odd.size());
  s.noteChange(odd, 2, 512);
  EXPECT_LE(s.runs().size(), 512u);
  std::string v = s.encode();
  auto back = SeenState::decode(v, SeenLimits{});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, s);
  EXPECT_EQ(s.setSeen(odd, false).size(), odd.size());
  EXPECT_TRUE(s.seen().empty());
}

TEST(SeenState, FromPartsRefusesNonCanonicalParts) {
  EXPECT_TRUE(SeenState::fromParts(0, {{1, 2}, {4, 4}}, {{1, 1, 3}}).ok());
  EXPECT_FALSE(SeenState::fromParts(0, {{1, 2}, {3, 4}}, {}).ok());
  EXPECT_FALSE(SeenState::fromParts(0, {}, {{1, 1, 0}}).ok());
  EXPECT_FALSE(SeenState::fromParts(-1, {}, {}).ok());
}

}  // namespace
}  // namespace darius::mailbox
