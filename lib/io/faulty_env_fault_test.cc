// Counters, injected faults, power-loss triggers, torn writes, and the harness catching bugs.
#include "lib/io/faulty_env.h"

#include <optional>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "lib/io/faulty_env_test_fixture.h"

namespace darius::io {
namespace {

using base::Code;

TEST_F(FaultyEnvTest, CountsWritesSyncsAndOps) {
  auto f = open("f", OpenMode::kCreateNew);  // op 1
  ok(f->append("a"));                           // op 2, write 1
  ok(f->pwrite(0, "b"));                        // op 3, write 2
  ok(f->sync());                                // op 4, sync 1
  ok(f->close());                               // not counted
  ok(env_->syncDir(dir_->path()));              // op 5, sync 2
  ok(env_->renameFile(path("f"), path("g")));   // op 6
  EXPECT_TRUE(env_->readFile(path("g")).ok());  // reads are not counted
  EXPECT_EQ(env_->writeCount(), 2u);
  EXPECT_EQ(env_->syncCount(), 2u);
  EXPECT_EQ(env_->opCount(), 6u);
}

TEST_F(FaultyEnvTest, FailAfterWritesHasNoSideEffects) {
  auto f = open("f", OpenMode::kCreateNew);
  env_->failAfterWrites(2);
  ok(f->append("one"));
  ok(f->append("two"));
  Status s = f->append("three");
  EXPECT_EQ(s.code(), Code::kIoError);
  EXPECT_EQ(s.message(), "injected fault");
  EXPECT_EQ(f->pwrite(0, "X").code(), Code::kIoError);
  EXPECT_EQ(onDisk("f"), "onetwo");
  EXPECT_EQ(f->size(), 6u);
  ok(f->sync());  // other kinds still work
  ok(env_->syncDir(dir_->path()));
  EXPECT_FALSE(env_->powerLost());
  env_->clearFaults();
  ok(f->append("four"));
  EXPECT_EQ(onDisk("f"), "onetwofour");
}

TEST_F(FaultyEnvTest, FailAfterSyncs) {
  auto f = open("f", OpenMode::kCreateNew);
  ok(env_->syncDir(dir_->path()));
  ok(f->append("data"));
  env_->failAfterSyncs(0);
  EXPECT_EQ(f->sync().code(), Code::kIoError);
  EXPECT_EQ(env_->syncDir(dir_->path()).code(), Code::kIoError);
  ok(f->append("more"));  // writes are unaffected
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("f"), "");  // the failed sync made nothing durable
}

TEST_F(FaultyEnvTest, FailAfterOpsCoversDirectoryOperations) {
  preexisting("a", "A");
  env_->failAfterOps(1);
  ok(env_->createDir(path("d")));
  EXPECT_EQ(env_->renameFile(path("a"), path("b")).code(), Code::kIoError);
  EXPECT_EQ(env_->removeFile(path("a")).code(), Code::kIoError);
  EXPECT_EQ(env_->linkFile(path("a"), path("c")).code(), Code::kIoError);
  EXPECT_EQ(env_->openWritable(path("n"), OpenMode::kCreateNew).status().code(),
            Code::kIoError);
  EXPECT_EQ(onDisk("a"), "A");
  EXPECT_EQ(onDisk("b"), std::nullopt);
  EXPECT_EQ(onDisk("n"), std::nullopt);
  EXPECT_TRUE(*env_->fileExists(path("a")));  // reads still work
}

TEST_F(FaultyEnvTest, FailClosesOfReportsAnErrorAfterReleasingTheNamedFileOnly) {
  env_->failClosesOf(path("index"));
  auto index = open("index", OpenMode::kCreateNew);
  auto other = open("other", OpenMode::kCreateNew);
  ASSERT_TRUE(index && other);
  ok(index->append("kept"));
  EXPECT_EQ(index->close().code(), Code::kIoError);
  EXPECT_EQ(onDisk("index"), "kept");  // the bytes were written; only the report fails
  EXPECT_TRUE(index->close().isOk());  // released the first time
  ok(other->close());
  env_->failClosesOf("");
  auto again = open("index", OpenMode::kAppend);
  ASSERT_TRUE(again);
  ok(again->close());
}

TEST_F(FaultyEnvTest, PowerLossStopsEverythingUntilRecovery) {
  preexisting("old", "durable");
  auto f = open("log", OpenMode::kCreateNew);
  ok(env_->syncDir(dir_->path()));
  env_->losePowerAfterWrites(1);
  ok(f->append("first"));
  Status s = f->append("second");
  EXPECT_EQ(s.code(), Code::kIoError);
  EXPECT_EQ(s.message(), "power lost");
  EXPECT_TRUE(env_->powerLost());
  EXPECT_EQ(onDisk("log"), "first");  // the failing op did not happen
  EXPECT_EQ(f->sync().code(), Code::kIoError);
  EXPECT_EQ(env_->readFile(path("old")).status().code(), Code::kIoError);
  EXPECT_EQ(env_->fileExists(path("old")).status().code(), Code::kIoError);
  EXPECT_EQ(env_->listDir(dir_->path()).status().code(), Code::kIoError);
  EXPECT_EQ(env_->openWritable(path("x"), OpenMode::kCreateNew).status().code(),
            Code::kIoError);
  EXPECT_EQ(env_->removeFile(path("old")).code(), Code::kIoError);
  EXPECT_EQ(env_->syncDir(dir_->path()).code(), Code::kIoError);
  uint64_t ops = env_->opCount();
  EXPECT_EQ(env_->renameFile(path("old"), path("new")).code(), Code::kIoError);
  EXPECT_EQ(env_->opCount(), ops);  // refused calls are not counted

  ok(env_->recoverFromPowerLoss());
  EXPECT_FALSE(env_->powerLost());
  EXPECT_EQ(onDisk("log"), "");
  EXPECT_EQ(onDisk("old"), "durable");
  EXPECT_EQ(f->append("zombie").code(), Code::kIoError);
  EXPECT_EQ(f->close().code(), Code::kIoError);
  EXPECT_TRUE(f->close().isOk());
  // Works normally again, and the trigger is gone.
  auto g = open("log", OpenMode::kAppend);
  ASSERT_TRUE(g);
  for (int i = 0; i < 5; ++i) ok(g->append("y"));
  EXPECT_EQ(*env_->readFile(path("log")), "yyyyy");
}

TEST_F(FaultyEnvTest, PowerLossAfterSyncs) {
  auto f = open("f", OpenMode::kCreateNew);
  ok(env_->syncDir(dir_->path()));  // sync 1
  env_->losePowerAfterSyncs(1);
  ok(f->append("a"));
  ok(f->sync());  // sync 2: allowed
  ok(f->append("b"));
  EXPECT_EQ(f->sync().code(), Code::kIoError);  // sync 3: power lost, not durable
  ok(env_->recoverFromPowerLoss());
  EXPECT_EQ(onDisk("f"), "a");
}

TEST_F(FaultyEnvTest, LosePowerNowAndDropKeepTheMachineOff) {
  auto f = open("f", OpenMode::kCreateNew);
  env_->losePowerNow();
  EXPECT_TRUE(env_->powerLost());
  ok(env_->dropUnsyncedData());
  EXPECT_TRUE(env_->powerLost());  // dropUnsyncedData does not turn the power on
  EXPECT_EQ(onDisk("f"), std::nullopt);
  EXPECT_EQ(env_->readFile(path("f")).status().code(), Code::kIoError);
  ok(env_->recoverFromPowerLoss());
  EXPECT_EQ(env_->readFile(path("f")).status().code(), Code::kNotFound);
}

TEST_F(FaultyEnvTest, TornWritesKeepAPrefixOfUnsyncedAppends) {
  std::set<size_t> lengths;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    std::string name = "log" + std::to_string(seed);
    auto f = open(name, OpenMode::kCreateNew);
    ok(env_->syncDir(dir_->path()));
    ok(f->append("abc"));
    ok(f->sync());
    ok(f->append("defghijklmnop"));
    env_->tornWrites(true, seed);
    ok(env_->dropUnsyncedData());
    auto got = onDisk(name);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(std::string("abcdefghijklmnop").substr(0, got->size()), *got);
    EXPECT_GE(got->size(), 3u);
    lengths.insert(got->size());
  }
  EXPECT_GE(lengths.size(), 3u);  // the prefix length really varies

  // Unsynced in-place updates are never torn: they roll back whole.
  preexisting("idx", "0000");
  auto f = open("idx", OpenMode::kAppend);
  ok(f->pwrite(0, "11"));
  ok(f->append("22"));
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("idx"), "0000");
}

TEST_F(FaultyEnvTest, ThreadsAreCountedExactly) {
  constexpr int kThreads = 4, kAppends = 100;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      auto f = env_->openWritable(path("t" + std::to_string(t)), OpenMode::kCreateNew);
      if (!f.ok()) return;
      for (int i = 0; i < kAppends; ++i) (void)(*f)->append("x");
      (void)(*f)->sync();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(env_->writeCount(), uint64_t{kThreads * kAppends});
  EXPECT_EQ(env_->syncCount(), uint64_t{kThreads});
  ok(env_->syncDir(dir_->path()));
  ok(env_->dropUnsyncedData());
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(onDisk("t" + std::to_string(t)), std::string(kAppends, 'x'));
  }
}

// The harness must be able to catch real bugs. Rewriting a file in place (truncate, write,
// fsync) is the classic one: some power-loss point must leave neither version.
TEST_F(FaultyEnvTest, HarnessCatchesInPlaceRewrite) {
  bool caught = false;
  for (uint64_t n = 0; n < 6 && !caught; ++n) {
    preexisting("conf", "version=1");
    env_->losePowerAfterOps(n);
    if (auto f = env_->openWritable(path("conf"), OpenMode::kTruncate); f.ok()) {
      (void)(*f)->append("version=2");
      (void)(*f)->sync();
    }
    ok(env_->recoverFromPowerLoss());
    auto got = onDisk("conf");
    if (got != "version=1" && got != "version=2") caught = true;
  }
  EXPECT_TRUE(caught);
}

// And forgetting the directory fsync after a rename loses an acknowledged update.
TEST_F(FaultyEnvTest, HarnessCatchesMissingDirSync) {
  preexisting("conf", "version=1");
  auto f = open("conf.tmp", OpenMode::kCreateNew);
  ok(f->append("version=2"));
  ok(f->sync());
  ok(f->close());
  ok(env_->renameFile(path("conf.tmp"), path("conf")));
  // ...acknowledged here, without syncDir...
  env_->losePowerNow();
  ok(env_->recoverFromPowerLoss());
  EXPECT_EQ(onDisk("conf"), "version=1");
}

}  // namespace
}  // namespace darius::io
