// Tests of the flat backend beyond the conformance suite: crash safety under FaultyEnv (power
// cut after every write and every sync in turn), failed commits, damaged and foreign files,
// stray temp files, and readers racing a writer inside one process.
#include "db/flat/flat_db.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "lib/io/atomic_file.h"
#include "lib/io/env.h"
#include "lib/io/faulty_env.h"
#include "lib/io/temp_dir.h"

namespace darius::db::flat {
namespace flat_db_test {

using base::Code;
using base::Status;
using Model = std::map<std::string, std::string>;

class FlatDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = io::TempDir::create("flat_db_test");
    ASSERT_TRUE(dir.ok()) << dir.status().toString();
    dir_ = std::make_unique<io::TempDir>(std::move(dir).value());
    path_ = dir_->file("db");
  }
  void writeRaw(std::string_view data) {
    ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), path_, data).isOk());
  }
  std::unique_ptr<io::TempDir> dir_;
  std::string path_;
};

Model contents(Database& db) {
  Model out;
  EXPECT_TRUE(db.scan(Range::all(), [&](std::string_view k, std::string_view v) {
                  out.emplace(k, v);
                  return true;
                }).isOk());
  return out;
}

// The commit sequence of the crash test: each step changes the model in a different way.
void applyStep(int step, Model& m) {
  m["k" + std::to_string(step)] = std::string(static_cast<size_t>(step * 10), 'a' + step);
  m["shared"] = std::to_string(step);
  if (step == 3) m.erase("k1");
  if (step == 4) m.erase("shared");
}
constexpr int kSteps = 5;

Status runSteps(Database& db, Model& acknowledged) {
  for (int step = 0; step < kSteps; ++step) {
    Model next = acknowledged;
    applyStep(step, next);
    DARIUS_ASSIGN_OR_RETURN(auto txn, db.begin());
    // Write the differences, so removes go through remove().
    for (const auto& [k, v] : acknowledged) {
      if (!next.count(k)) DARIUS_RETURN_IF_ERROR(txn->remove(k));
    }
    for (const auto& [k, v] : next) DARIUS_RETURN_IF_ERROR(txn->put(k, v));
    DARIUS_RETURN_IF_ERROR(txn->commit());
    acknowledged = std::move(next);
  }
  return Status::ok();
}

enum class Cut { kWrites, kSyncs };

void crashLoop(Cut cut, bool torn) {
  for (uint64_t n = 0;; ++n) {
    SCOPED_TRACE("power cut after " + std::to_string(n) +
                 (cut == Cut::kWrites ? " writes" : " syncs") + (torn ? ", torn" : ""));
    auto dir = io::TempDir::create("flat_crash");
    ASSERT_TRUE(dir.ok());
    std::string path = dir->file("db");
    io::FaultyEnv env(io::Env::posix());
    if (torn) env.tornWrites(true, n + 1);
    if (cut == Cut::kWrites)
      env.losePowerAfterWrites(n);
    else
      env.losePowerAfterSyncs(n);

    OpenOptions options;
    options.env = &env;
    Model acknowledged;
    bool opened = false;
    Status s;
    {
      auto db = openFlat(path, options);
      s = db.status();
      if (db.ok()) {
        opened = true;
        s = runSteps(**db, acknowledged);
      }
    }
    bool finished = s.isOk() && !env.powerLost();
    env.losePowerNow();
    ASSERT_TRUE(env.recoverFromPowerLoss().isOk());

    OpenOptions reopen;
    reopen.create = false;
    auto db = openFlat(path, reopen);
    if (!opened && !db.ok()) {
      // The creation itself was cut: no database, or (below) an empty one.
      ASSERT_EQ(db.status().code(), Code::kNotFound) << db.status().toString();
    } else {
      ASSERT_TRUE(db.ok()) << db.status().toString();
      // Exactly the acknowledged commits: none lost, no unacknowledged one visible.
      EXPECT_EQ(contents(**db), acknowledged);
      auto report = (*db)->check();
      ASSERT_TRUE(report.ok());
      EXPECT_TRUE(report->ok());
      // The open removed any temp file the cut left behind.
      auto names = io::Env::posix()->listDir(dir->path());
      ASSERT_TRUE(names.ok());
      EXPECT_EQ(*names, (std::vector<std::string>{"db", "db.lock"}));
    }
    if (finished) {
      EXPECT_GT(n, 0u);
      break;
    }
    ASSERT_LT(n, 1000u) << "the commit sequence never finished";
  }
}

TEST_F(FlatDbTest, PowerCutAfterEveryWrite) { crashLoop(Cut::kWrites, false); }
TEST_F(FlatDbTest, PowerCutAfterEverySync) { crashLoop(Cut::kSyncs, false); }
TEST_F(FlatDbTest, PowerCutWithTornWrites) {
  crashLoop(Cut::kWrites, true);
  crashLoop(Cut::kSyncs, true);
}

TEST_F(FlatDbTest, FailedCommitKeepsOldState) {
  io::FaultyEnv env(io::Env::posix());
  OpenOptions options;
  options.env = &env;
  auto db = openFlat(path_, options);
  ASSERT_TRUE(db.ok()) << db.status().toString();
  auto txn = (*db)->begin();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE((*txn)->put("a", "1").isOk());
  ASSERT_TRUE((*txn)->commit().isOk());

  for (int mode = 0; mode < 2; ++mode) {
    if (mode == 0)
      env.failAfterWrites(0);
    else
      env.failAfterSyncs(0);  // the temp file's fsync: before the rename
    txn = (*db)->begin();
    ASSERT_TRUE(txn.ok()) << txn.status().toString();
    ASSERT_TRUE((*txn)->put("a", "2").isOk());
    EXPECT_EQ((*txn)->commit().code(), Code::kIoError);
    env.clearFaults();
    EXPECT_EQ((*db)->get("a").valueOr("?"), "1");
  }
  // The lock was released by the failed commits; the next one works.
  txn = (*db)->begin();
  ASSERT_TRUE(txn.ok()) << txn.status().toString();
  ASSERT_TRUE((*txn)->put("a", "3").isOk());
  ASSERT_TRUE((*txn)->commit().isOk());
  EXPECT_EQ((*db)->get("a").valueOr("?"), "3");
  auto names = io::Env::posix()->listDir(dir_->path());
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"db", "db.lock"}));
}

TEST_F(FlatDbTest, DamagedFileIsCorruptionWithOffset) {
  writeRaw("# darius-flat 1\na\t1\nb\\q\t2\n");
  auto db = openFlat(path_, {});
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Code::kCorruption);
  EXPECT_NE(db.status().message().find("line 3 (offset 21)"), std::string::npos)
      << db.status().toString();

  // A database opened healthy that turns bad on disk: reads say so, check() explains.
  writeRaw("# darius-flat 1\na\t1\n");
  db = openFlat(path_, {});
  ASSERT_TRUE(db.ok()) << db.status().toString();
  writeRaw("# darius-flat 1\nb\t1\na\t2\n");
  EXPECT_EQ((*db)->get("a").status().code(), Code::kCorruption);
  EXPECT_EQ((*db)->begin().status().code(), Code::kCorruption);
  auto report = (*db)->check();
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_NE(report->problems[0].find("line 3 (offset 20): key out of order"), std::string::npos)
      << report->problems[0];
  EXPECT_EQ(report->records, 1u);
}

TEST_F(FlatDbTest, ForeignFilesAreInvalid) {
  writeRaw("# darius-flat 2\n");
  EXPECT_EQ(openFlat(path_, {}).status().code(), Code::kInvalid);
  writeRaw(std::string("\xa1\x02\x8b\x0dskiplist file\0\0\0", 20));
  EXPECT_EQ(openFlat(path_, {}).status().code(), Code::kInvalid);
  std::string dir = dir_->file("envdir");
  ASSERT_TRUE(io::Env::posix()->createDir(dir).isOk());
  EXPECT_EQ(openFlat(dir, {}).status().code(), Code::kInvalid);
}

TEST_F(FlatDbTest, OpenRemovesStrayTempFilesUnlessReadOnly) {
  writeRaw("# darius-flat 1\na\t1\n");
  std::string stray = dir_->file(".db.tmp.123.0.abc");
  std::string other = dir_->file(".other.tmp.1.0.a");  // another file's: not ours to remove
  ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), stray, "half").isOk());
  ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), other, "x").isOk());
  OpenOptions ro;
  ro.read_only = true;
  ASSERT_TRUE(openFlat(path_, ro).ok());
  EXPECT_TRUE(*io::Env::posix()->fileExists(stray));
  ASSERT_TRUE(openFlat(path_, {}).ok());
  EXPECT_FALSE(*io::Env::posix()->fileExists(stray));
  EXPECT_TRUE(*io::Env::posix()->fileExists(other));
}

TEST_F(FlatDbTest, ReadOnlyNeverCreates) {
  OpenOptions ro;
  ro.read_only = true;  // create stays true: read-only still writes nothing
  EXPECT_EQ(openFlat(path_, ro).status().code(), Code::kNotFound);
  auto names = io::Env::posix()->listDir(dir_->path());
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(names->empty());
}

TEST_F(FlatDbTest, ReaderThreadsRaceAWriter) {
  auto db = openFlat(path_, {});
  ASSERT_TRUE(db.ok());
  auto other = openFlat(path_, {});  // reads through a second handle reload from disk
  ASSERT_TRUE(other.ok());
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r) {
    Database* target = r % 2 ? db->get() : other->get();
    readers.emplace_back([&, target] {
      while (!stop) {
        std::string gen;
        bool first = true;
        Status s = target->scan(Range::all(), [&](std::string_view, std::string_view v) {
          if (first)
            gen = std::string(v);
          else if (v != gen)
            ++bad;  // one commit's values, never a mix
          first = false;
          return true;
        });
        if (!s.isOk()) ++bad;
      }
    });
  }
  for (int gen = 0; gen < 100; ++gen) {
    auto txn = (*db)->begin();
    ASSERT_TRUE(txn.ok());
    for (int k = 0; k < 10; ++k) {
      ASSERT_TRUE((*txn)->put("k" + std::to_string(k), std::to_string(gen)).isOk());
    }
    ASSERT_TRUE((*txn)->commit().isOk());
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ((*other)->get("k3").valueOr("?"), "99");
}

}  // namespace flat_db_test
}  // namespace darius::db::flat
