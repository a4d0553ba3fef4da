// Crash tests of the skiplist backend with FaultyEnv: power is cut after every single write and
// every single sync of a sequence of transactions and a compaction, in turn; after recovery
// every acknowledged transaction is there, nothing unacknowledged beyond the one in flight,
// and check() is clean. Plus corruption (flipped bytes, truncation) and salvage.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <map>

#include "db/skiplist/skiplist_db.h"
#include "lib/io/atomic_file.h"
#include "lib/io/faulty_env.h"
#include "lib/io/fd.h"
#include "lib/io/temp_dir.h"

namespace darius::db::skiplist {
namespace skiplist_crash_test {

using State = std::map<std::string, std::string>;
using Op = std::pair<std::string, std::optional<std::string>>;

// Transaction i of the crash sequence; index kCompact means "compact()".
constexpr int kCompact = 3;
std::vector<std::vector<Op>> txns() {
  std::vector<std::vector<Op>> t(6);
  t[0] = {{"a", "1"}, {"b", "2"}, {"c", "3"}};
  t[1] = {{"b", std::nullopt}, {"d", "4"}, {"a", "11"}};
  t[2] = {{"e", std::string(300, 'e')}, {"b", "222"}};
  t[4] = {{"c", std::nullopt}, {"f", "6"}, {"a", "111"}};
  t[5] = {{"g", "7"}, {"c", "33"}};
  return t;
}

State applyOps(State s, const std::vector<Op>& ops) {
  for (const auto& [k, v] : ops) {
    if (v) s[k] = *v;
    else s.erase(k);
  }
  return s;
}

State contents(Database& db) {
  State s;
  base::Status st = db.scan(Range::all(), [&](std::string_view k, std::string_view v) {
    s.emplace(k, v);
    return true;
  });
  EXPECT_TRUE(st.isOk()) << st.toString();
  return s;
}

void seed(const std::string& path) {
  auto db = *openSkiplist(path, {});
  auto t = *db->begin();
  ASSERT_TRUE(t->put("base", "0").isOk());
  ASSERT_TRUE(t->commit().isOk());
}

// Runs the sequence once with `arm` applied to the env; returns how many steps were
// acknowledged and whether the run completed.
void crashRun(const std::function<void(io::FaultyEnv&)>& arm, bool* completed) {
  auto dir = *io::TempDir::create("skiplist-crash");
  std::string path = dir.file("db");
  seed(path);
  auto seq = txns();
  int acked = 0;
  bool attempted_next = false;
  {
    io::FaultyEnv env(io::Env::posix());
    arm(env);
    OpenOptions o;
    o.env = &env;
    auto db = openSkiplist(path, o);
    for (size_t i = 0; db.ok() && i < seq.size(); ++i) {
      attempted_next = true;
      base::Status s;
      if (int(i) == kCompact) {
        s = (*db)->compact();
      } else {
        auto t = (*db)->begin();
        s = t.status();
        for (const auto& [k, v] : seq[i]) {
          if (!s.isOk()) break;
          s = v ? (*t)->put(k, *v) : (*t)->remove(k);
        }
        if (s.isOk()) s = (*t)->commit();
      }
      if (!s.isOk() || env.powerLost()) break;
      ++acked;
      attempted_next = false;
    }
    *completed = acked == int(seq.size()) && !env.powerLost();
    db = base::Status::notFound("closed");  // close before the "reboot"
    env.losePowerNow();
    ASSERT_TRUE(env.recoverFromPowerLoss().isOk());
  }
  State expect{{"base", "0"}};
  for (int i = 0; i < acked; ++i) expect = applyOps(expect, seq[size_t(i)]);
  State maybe = attempted_next && acked < int(seq.size()) ? applyOps(expect, seq[size_t(acked)])
                                                          : expect;
  auto db = openSkiplist(path, {});
  ASSERT_TRUE(db.ok()) << db.status().toString();
  State got = contents(**db);
  EXPECT_TRUE(got == expect || got == maybe) << "acked " << acked;
  auto rep = (*db)->check();
  ASSERT_TRUE(rep.ok());
  EXPECT_TRUE(rep->ok()) << rep->problems.front();
  // The database goes on working after recovery.
  auto t = *(*db)->begin();
  ASSERT_TRUE(t->put("after", "x").isOk());
  ASSERT_TRUE(t->commit().isOk());
  EXPECT_EQ(*(*db)->get("after"), "x");
  EXPECT_TRUE((*db)->check()->ok());
}

TEST(SkiplistCrashTest, PowerLossAfterEveryWrite) {
  bool done = false;
  uint64_t runs = 0;
  for (uint64_t n = 0; !done && n < 1000; ++n) {
    SCOPED_TRACE("writes " + std::to_string(n));
    crashRun([n](io::FaultyEnv& e) { e.losePowerAfterWrites(n); }, &done);
    if (HasFatalFailure()) return;
    runs = n + 1;
  }
  EXPECT_TRUE(done);
  EXPECT_GT(runs, 15u);  // the sequence really was cut at many points
}

TEST(SkiplistCrashTest, PowerLossAfterEverySync) {
  bool done = false;
  uint64_t runs = 0;
  for (uint64_t n = 0; !done && n < 1000; ++n) {
    SCOPED_TRACE("syncs " + std::to_string(n));
    crashRun([n](io::FaultyEnv& e) { e.losePowerAfterSyncs(n); }, &done);
    if (HasFatalFailure()) return;
    runs = n + 1;
  }
  EXPECT_TRUE(done);
  EXPECT_GT(runs, 5u);  // the sequence really was cut at many points
}

TEST(SkiplistCrashTest, PowerLossAfterEveryOpWithTornWrites) {
  bool done = false;
  uint64_t runs = 0;
  for (uint64_t n = 0; !done && n < 1000; ++n) {
    SCOPED_TRACE("ops " + std::to_string(n));
    crashRun([n](io::FaultyEnv& e) {
      e.tornWrites(true, n + 1);
      e.losePowerAfterOps(n);
    }, &done);
    if (HasFatalFailure()) return;
    runs = n + 1;
  }
  EXPECT_TRUE(done);
  EXPECT_GT(runs, 15u);  // the sequence really was cut at many points
}

// A commit whose fsync fails is not acknowledged and must not reappear later (the next
// begin() redoes complete transactions it finds after the committed end).
TEST(SkiplistCrashTest, FailedSyncIsNotResurrected) {
  auto dir = *io::TempDir::create("skiplist-crash");
  std::string path = dir.file("db");
  seed(path);
  io::FaultyEnv env(io::Env::posix());
  OpenOptions o;
  o.env = &env;
  auto db = *openSkiplist(path, o);
  {
    auto t = *db->begin();
    ASSERT_TRUE(t->put("lost", "x").isOk());
    env.failAfterSyncs(0);
    EXPECT_FALSE(t->commit().isOk());
    env.clearFaults();
  }
  EXPECT_TRUE(db->get("lost").status().isNotFound());
  auto t = *db->begin();
  ASSERT_TRUE(t->put("kept", "y").isOk());
  ASSERT_TRUE(t->commit().isOk());
  EXPECT_TRUE(db->get("lost").status().isNotFound());
  EXPECT_EQ(*db->get("kept"), "y");
  EXPECT_TRUE(db->check()->ok());
}

// Flip every byte, and truncate at every length: open/scan/check give errors or consistent
// results, never a crash; salvage always yields a clean database.
TEST(SkiplistCorruptionTest, FlippedBytesAndTruncation) {
  auto dir = *io::TempDir::create("skiplist-corrupt");
  std::string path = dir.file("db");
  {
    auto db = *openSkiplist(path, {});
    for (int i = 0; i < 4; ++i) {
      auto t = *db->begin();
      for (int j = 0; j < 5; ++j) {
        ASSERT_TRUE(t->put("k" + std::to_string(j * 4 + i), "value" + std::to_string(i)).isOk());
      }
      if (i == 2) {
        ASSERT_TRUE(t->remove("k0").isOk());
      }
      ASSERT_TRUE(t->commit().isOk());
    }
  }
  std::string good = *io::Env::posix()->readFile(path);
  auto probe = [&](const std::string& bytes, bool salvage) {
    std::string p = dir.file("probe");
    (void)io::Env::posix()->removeFile(p);
    {  // no fsync: these files need not survive a crash, and thousands of fsyncs are slow
      auto fd = io::openFile(p, O_WRONLY | O_CREAT | O_TRUNC, 0640);
      ASSERT_TRUE(fd.ok());
      ASSERT_TRUE(io::writeAll(fd->get(), bytes).isOk());
    }
    OpenOptions ro;
    ro.read_only = true;
    auto db = openSkiplist(p, ro);
    if (db.ok()) {
      (void)(*db)->get("k5");
      (void)(*db)->scan(Range::all(), [](std::string_view, std::string_view) { return true; });
      (void)(*db)->check();
    } else {
      auto c = db.status().code();
      EXPECT_TRUE(c == base::Code::kCorruption || c == base::Code::kInvalid)
          << db.status().toString();
    }
    db = base::Status::notFound("closed");
    auto rw = openSkiplist(p, {});
    if (rw.ok()) (void)(*rw)->check();
    rw = base::Status::notFound("closed");
    if (salvage) {
      auto n = salvageSkiplist(p, nullptr);
      ASSERT_TRUE(n.ok()) << n.status().toString();
      auto db2 = openSkiplist(p, {});
      ASSERT_TRUE(db2.ok()) << db2.status().toString();
      auto rep = (*db2)->check();
      ASSERT_TRUE(rep.ok());
      EXPECT_TRUE(rep->ok());
      EXPECT_EQ(rep->records, *n);
    }
  };
  for (size_t off = 0; off < good.size(); ++off) {
    SCOPED_TRACE("flip at " + std::to_string(off));
    std::string bad = good;
    bad[off] = char(bad[off] ^ 0x5a);
    probe(bad, off % 5 == 0);
    if (HasFatalFailure()) return;
  }
  for (size_t len = 0; len < good.size(); len += 3) {
    SCOPED_TRACE("truncate at " + std::to_string(len));
    probe(good.substr(0, len), len % 15 == 0 && len >= 64);
    if (HasFatalFailure()) return;
  }
}

}  // namespace skiplist_crash_test
}  // namespace darius::db::skiplist
