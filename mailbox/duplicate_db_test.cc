// DuplicateDb on a real skiplist file: claims inside and outside the window, concurrent
// claims, lazy batches that survive a reopen, release after a failed delivery, and pruning
// that reads only the expired entries.
#include "mailbox/duplicate_db.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "lib/io/temp_dir.h"

namespace darius::mailbox {
namespace {

using namespace std::chrono_literals;

class DuplicateDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = io::TempDir::create("darius-dupdb");
    ASSERT_TRUE(d.ok());
    dir_ = std::make_unique<io::TempDir>(std::move(*d));
  }
  std::unique_ptr<DuplicateDb> open(std::chrono::seconds window = 3600s, size_t batch = 256,
                                    std::chrono::milliseconds flush = 0ms) {
    DuplicateDbOptions o;
    o.path = dir_->file("duplicates.db");
    o.window = window;
    o.batch = batch;
    o.flush_interval = flush;
    o.prune_interval = 1000000s;  // only explicit prunes
    auto db = DuplicateDb::open(o);
    EXPECT_TRUE(db.ok()) << db.status().toString();
    return db.ok() ? std::move(*db) : nullptr;
  }
  bool claim(DuplicateDb& db, std::string_view id, std::string_view mbox, int64_t now) {
    auto r = db.claim(id, mbox, now);
    EXPECT_TRUE(r.ok()) << r.status().toString();
    return r.ok() && *r;
  }

  std::unique_ptr<io::TempDir> dir_;
};

TEST_F(DuplicateDbTest, SameIdSameMailboxIsSuppressedWithinTheWindowOnly) {
  auto db = open(100s);
  ASSERT_TRUE(claim(*db, "<a@x>", "mbox1", 1000));
  db->confirm("<a@x>", "mbox1");
  EXPECT_FALSE(claim(*db, "<a@x>", "mbox1", 1050));  // pending, in memory
  EXPECT_TRUE(claim(*db, "<a@x>", "mbox2", 1050));   // another mailbox
  EXPECT_TRUE(claim(*db, "<b@x>", "mbox1", 1050));   // another message
  ASSERT_TRUE(db->flush().isOk());
  EXPECT_FALSE(claim(*db, "<a@x>", "mbox1", 1099));  // now from the database
  EXPECT_TRUE(claim(*db, "<a@x>", "mbox1", 1100));   // the window has passed
}

TEST_F(DuplicateDbTest, ConfirmedMarksSurviveAReopenAndUnconfirmedOnesDoNot) {
  {
    auto db = open();
    ASSERT_TRUE(claim(*db, "<kept@x>", "m", 10));
    db->confirm("<kept@x>", "m");
    ASSERT_TRUE(claim(*db, "<failed@x>", "m", 10));
    db->release("<failed@x>", "m");
    ASSERT_TRUE(claim(*db, "<inflight@x>", "m", 10));  // never confirmed
  }  // the destructor writes what is confirmed
  auto db = open();
  EXPECT_FALSE(claim(*db, "<kept@x>", "m", 20));
  EXPECT_TRUE(claim(*db, "<failed@x>", "m", 20));
  EXPECT_TRUE(claim(*db, "<inflight@x>", "m", 20));
}

TEST_F(DuplicateDbTest, AnInFlightClaimBlocksASecondDeliveryUntilReleased) {
  auto db = open();
  ASSERT_TRUE(claim(*db, "<x@y>", "m", 10));
  EXPECT_FALSE(claim(*db, "<x@y>", "m", 10));
  db->release("<x@y>", "m");
  EXPECT_TRUE(claim(*db, "<x@y>", "m", 10));
}

TEST_F(DuplicateDbTest, DisabledOrWithoutMessageIdNothingIsSuppressed) {
  auto off = open(0s);
  EXPECT_FALSE(off->enabled());
  ASSERT_TRUE(claim(*off, "<a@x>", "m", 10));
  off->confirm("<a@x>", "m");
  EXPECT_TRUE(claim(*off, "<a@x>", "m", 10));
  off.reset();
  auto on = open();
  ASSERT_TRUE(claim(*on, "", "m", 10));
  on->confirm("", "m");
  EXPECT_TRUE(claim(*on, "", "m", 10));
}

TEST_F(DuplicateDbTest, BatchesAreWrittenWhenFullAndByTheFlusherThread) {
  auto db = open(3600s, /*batch=*/4);
  for (int i = 0; i < 4; ++i) {
    std::string id = "<" + std::to_string(i) + "@x>";
    ASSERT_TRUE(claim(*db, id, "m", 10));
    db->confirm(id, "m");
  }
  EXPECT_EQ(db->pendingForTest(), 0u);  // the fourth confirm wrote the batch
  db.reset();
  auto timed = open(3600s, 1000, 20ms);
  ASSERT_TRUE(claim(*timed, "<t@x>", "m", 10));
  timed->confirm("<t@x>", "m");
  for (int i = 0; i < 500 && timed->pendingForTest() != 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(timed->pendingForTest(), 0u);
}

TEST_F(DuplicateDbTest, ConcurrentClaimsOfOneMessageHaveOneWinner) {
  auto db = open();
  for (int round = 0; round < 20; ++round) {
    std::string id = "<race" + std::to_string(round) + "@x>";
    std::atomic<int> winners{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&] {
        auto r = db->claim(id, "m", 10);
        if (r.ok() && *r) {
          ++winners;
          db->confirm(id, "m");
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(winners.load(), 1) << id;
  }
}

TEST_F(DuplicateDbTest, PruneRemovesExactlyTheExpiredEntries) {
  auto db = open(100s);
  for (int i = 0; i < 50; ++i) {
    std::string id = "<" + std::to_string(i) + "@x>";
    ASSERT_TRUE(claim(*db, id, "m", 1000 + i));  // times 1000..1049
    db->confirm(id, "m");
  }
  ASSERT_TRUE(db->flush().isOk());
  // Re-marking <0@x> at 1200 moves it out of the expired range.
  ASSERT_TRUE(claim(*db, "<0@x>", "m", 1200));
  db->confirm("<0@x>", "m");
  ASSERT_TRUE(db->flush().isOk());
  auto pruned = db->prune(1130);  // cutoff 1030: times 1001..1030 expire (1000 was re-marked)
  ASSERT_TRUE(pruned.ok()) << pruned.status().toString();
  EXPECT_EQ(*pruned, 30u);
  EXPECT_FALSE(claim(*db, "<0@x>", "m", 1210));   // re-marked, kept
  EXPECT_FALSE(claim(*db, "<31@x>", "m", 1130));  // not expired
  auto again = db->prune(1130);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0u);
  // Nothing but the live entries is left: 19 old ones and <0@x>, two records each.
  auto raw = db::Database::open(dir_->file("duplicates.db"), db::Backend::kSkiplist);
  ASSERT_TRUE(raw.ok());
  size_t records = 0;
  ASSERT_TRUE((*raw)->scan(db::Range::all(), [&](std::string_view, std::string_view) {
    ++records;
    return true;
  }).isOk());
  EXPECT_EQ(records, 40u);
}

TEST_F(DuplicateDbTest, HostileIdsAreKeyedSafely) {
  auto db = open();
  std::string nul("<a\0b@x>", 7);
  ASSERT_TRUE(claim(*db, nul, "m", 10));
  db->confirm(nul, "m");
  std::string huge(100000, 'x');
  ASSERT_TRUE(claim(*db, huge, "m", 10));
  db->confirm(huge, "m");
  ASSERT_TRUE(db->flush().isOk());
  EXPECT_FALSE(claim(*db, nul, "m", 11));
  EXPECT_FALSE(claim(*db, huge, "m", 11));
}

}  // namespace
}  // namespace darius::mailbox
