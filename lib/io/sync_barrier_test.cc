// Filesystem-wide syncs: what FaultyEnv keeps after one, what Env::posix() accepts, and the
// group commit of SyncBarrier.
#include "lib/io/sync_barrier.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "lib/io/faulty_env_test_fixture.h"

namespace darius::io {
namespace {

using base::Code;

class FilesystemSyncTest : public FaultyEnvTest {
 protected:
  // A file, a directory with a file in it, a link and an append to a file that was there.
  void writeUnsynced() {
    preexisting("old", "kept");
    auto f = open("new", OpenMode::kCreateNew);
    ASSERT_TRUE(f);
    ok(f->append("fresh"));
    ok(f->close());
    ok(env_->createDir(path("sub")));
    auto g = open("sub/inner", OpenMode::kCreateNew);
    ASSERT_TRUE(g);
    ok(g->append("deep"));
    ok(g->close());
    ok(env_->linkFile(path("new"), path("sub/linked")));
    auto h = open("old", OpenMode::kAppend);
    ASSERT_TRUE(h);
    ok(h->append("+more"));
    ok(h->close());
  }
};

TEST_F(FilesystemSyncTest, OneSyncMakesEveryFileAndNameDurable) {
  auto fs = env_->openFilesystemSync({dir_->path()});
  ASSERT_TRUE(fs.ok()) << fs.status().toString();
  writeUnsynced();
  ok((*fs)->sync());
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("new"), "fresh");
  EXPECT_EQ(onDisk("sub/inner"), "deep");
  EXPECT_EQ(onDisk("sub/linked"), "fresh");
  EXPECT_EQ(onDisk("old"), "kept+more");
}

TEST_F(FilesystemSyncTest, WithoutItTheSameWritesAreLost) {
  writeUnsynced();
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("new"), std::nullopt);
  EXPECT_FALSE(dirOnDisk("sub"));
  EXPECT_EQ(onDisk("old"), "kept");
}

TEST_F(FilesystemSyncTest, WritesAfterTheSyncAreNotCovered) {
  auto fs = env_->openFilesystemSync({dir_->path()});
  ASSERT_TRUE(fs.ok()) << fs.status().toString();
  preexisting("log", "a");
  auto f = open("log", OpenMode::kAppend);
  ASSERT_TRUE(f);
  ok(f->append("b"));
  ok((*fs)->sync());
  ok(f->append("c"));
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("log"), "ab");
}

TEST_F(FilesystemSyncTest, APowerCutInMidSyncKeepsWhatWasWrittenBackSoFar) {
  auto fs = env_->openFilesystemSync({dir_->path()});
  ASSERT_TRUE(fs.ok()) << fs.status().toString();
  writeUnsynced();
  const uint64_t before = env_->syncCount();
  ok((*fs)->sync());
  const uint64_t steps = env_->syncCount() - before;
  ASSERT_GT(steps, 2u);  // one step of its own, then one per dirty file or directory
  // The same writes again, power cut after each step in turn: every outcome lies between
  // nothing and everything, and the whole sync is needed for everything.
  for (uint64_t cut = 0; cut < steps; ++cut) {
    auto t = TempDir::create("faulty_env_test");
    ASSERT_TRUE(t.ok());
    dir_ = std::make_unique<TempDir>(std::move(*t));
    env_ = std::make_unique<FaultyEnv>(Env::posix());
    auto again = env_->openFilesystemSync({dir_->path()});
    ASSERT_TRUE(again.ok());
    writeUnsynced();
    env_->losePowerAfterSyncs(cut);
    EXPECT_EQ((*again)->sync().code(), Code::kIoError) << "cut " << cut;
    ok(env_->recoverFromPowerLoss());
    auto old = onDisk("old");
    EXPECT_TRUE(old == "kept" || old == "kept+more") << "cut " << cut;
    if (cut == 0) {
      EXPECT_EQ(onDisk("new"), std::nullopt);
    }
  }
}

TEST_F(FilesystemSyncTest, FailsAsASyncAndDiesWithThePower) {
  auto fs = env_->openFilesystemSync({dir_->path()});
  ASSERT_TRUE(fs.ok()) << fs.status().toString();
  env_->failAfterSyncs(0);
  EXPECT_EQ((*fs)->sync().code(), Code::kIoError);
  env_->clearFaults();
  ok((*fs)->sync());
  env_->losePowerNow();
  EXPECT_EQ((*fs)->sync().code(), Code::kIoError);
  ok(env_->recoverFromPowerLoss());
  EXPECT_EQ((*fs)->sync().code(), Code::kIoError);  // a handle from before the reboot
}

TEST_F(FilesystemSyncTest, TheModelAcceptsAnyDirectories) {
  auto fs = env_->openFilesystemSync({dir_->path(), "/proc"});
  ASSERT_TRUE(fs.ok()) << fs.status().toString();  // one modelled filesystem
  EXPECT_TRUE(*(*fs)->covers(dir_->path()));
  EXPECT_FALSE(*(*fs)->isRoot(dir_->path()));
  EXPECT_EQ(env_->openFilesystemSync({path("missing")}).status().code(), Code::kNotFound);
}

TEST(PosixFilesystemSync, SyncsATrustedFilesystemAndRefusesMixedOnes) {
  auto dir = TempDir::create("fs_sync_test");
  ASSERT_TRUE(dir.ok()) << dir.status().toString();
  // /proc is never trusted, and never on the temp dir's filesystem.
  auto proc = Env::posix()->openFilesystemSync({"/proc"});
  EXPECT_EQ(proc.status().code(), Code::kNotSupported);
  auto fs = Env::posix()->openFilesystemSync({dir->path()});
  if (!fs.ok() && fs.status().code() == Code::kNotSupported) {
    GTEST_SKIP() << "temp dir on an untrusted filesystem: " << fs.status().toString();
  }
  ASSERT_TRUE(fs.ok()) << fs.status().toString();
  EXPECT_TRUE((*fs)->sync().isOk());
  EXPECT_TRUE(*(*fs)->covers(dir->path()));
  EXPECT_FALSE(*(*fs)->covers("/proc"));
  EXPECT_FALSE(*(*fs)->isRoot(dir->path()));  // a temp dir is no mount point
  EXPECT_TRUE(*(*fs)->isRoot("/"));
  auto mixed = Env::posix()->openFilesystemSync({dir->path(), "/proc"});
  EXPECT_EQ(mixed.status().code(), Code::kNotSupported);
  EXPECT_NE(mixed.status().message().find("another filesystem"), std::string::npos)
      << mixed.status().toString();
  auto missing = Env::posix()->openFilesystemSync({dir->path() + "/nope"});
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
}

// The FaultyEnv sync behind a gate: the first call waits until the test opens it, so that
// callers can be lined up behind a syncfs in progress.
class GatedSync final : public FilesystemSync {
 public:
  explicit GatedSync(std::unique_ptr<FilesystemSync> real) : real_(std::move(real)) {}
  Status sync() override {
    {
      std::unique_lock<std::mutex> lk(mu_);
      if (calls_++ == 0) {
        entered_ = true;
        cv_.notify_all();
        cv_.wait(lk, [&] { return open_; });
      }
    }
    return real_->sync();
  }
  Result<bool> covers(const std::string& path) override { return real_->covers(path); }
  Result<bool> isRoot(const std::string& path) override { return real_->isRoot(path); }
  void awaitFirst() {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return entered_; });
  }
  void open() {
    std::lock_guard<std::mutex> lk(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::unique_ptr<FilesystemSync> real_;
  std::mutex mu_;
  std::condition_variable cv_;
  int calls_ = 0;
  bool entered_ = false, open_ = false;
};

TEST_F(FilesystemSyncTest, BarrierCallersArrivingDuringASyncShareTheNextOne) {
  auto fs = env_->openFilesystemSync({dir_->path()});
  ASSERT_TRUE(fs.ok()) << fs.status().toString();
  auto gated = std::make_unique<GatedSync>(std::move(*fs));
  GatedSync* gate = gated.get();
  SyncBarrier barrier(std::move(gated));

  std::atomic<int> okays{0};
  std::thread first([&] { okays += barrier.sync(barrier.mark()).isOk(); });
  gate->awaitFirst();
  // Written while the first syncfs runs: it may have missed them, so they need another.
  std::vector<std::thread> later;
  for (int i = 0; i < 3; ++i) {
    later.emplace_back([&] { okays += barrier.sync(barrier.mark()).isOk(); });
  }
  while (barrier.stats().calls < 4) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  gate->open();
  first.join();
  for (auto& t : later) t.join();
  EXPECT_EQ(okays.load(), 4);
  EXPECT_EQ(barrier.stats().calls, 4u);
  EXPECT_EQ(barrier.stats().syncs, 2u);
}

// Counts syncfs calls as they start and finish (the barrier runs one at a time).
class CountingSync final : public FilesystemSync {
 public:
  explicit CountingSync(std::unique_ptr<FilesystemSync> real) : real_(std::move(real)) {}
  Status sync() override {
    started_.fetch_add(1);
    Status s = real_->sync();
    finished_.fetch_add(1);
    return s;
  }
  Result<bool> covers(const std::string& path) override { return real_->covers(path); }
  Result<bool> isRoot(const std::string& path) override { return real_->isRoot(path); }
  uint64_t started() const { return started_.load(); }
  uint64_t finished() const { return finished_.load(); }

 private:
  std::unique_ptr<FilesystemSync> real_;
  std::atomic<uint64_t> started_{0}, finished_{0};
};

// Many callers at once: each returns only after a syncfs that started after it called has
// finished (the barrier's promise), none is left waiting, and they share syncfs calls.
TEST_F(FilesystemSyncTest, BarrierUnderConcurrencyReturnsOnlyAfterALaterSync) {
  auto fs = env_->openFilesystemSync({dir_->path()});
  ASSERT_TRUE(fs.ok()) << fs.status().toString();
  auto counting = std::make_unique<CountingSync>(std::move(*fs));
  CountingSync* c = counting.get();
  SyncBarrier barrier(std::move(counting));
  constexpr int kThreads = 8, kCalls = 200;
  std::atomic<int> early{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCalls; ++i) {
        const uint64_t before = c->started();
        if (!barrier.sync(barrier.mark()).isOk()) ++failed;
        if (c->finished() <= before) ++early;  // no syncfs begun after the call has ended
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(early.load(), 0);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(barrier.stats().calls, uint64_t{kThreads * kCalls});
  EXPECT_EQ(barrier.stats().syncs, c->finished());
  EXPECT_LE(barrier.stats().syncs, uint64_t{kThreads * kCalls});
}

TEST_F(FilesystemSyncTest, BarrierFailsEveryCallerWhoseWritesSpannedAFailedSync) {
  auto fs = env_->openFilesystemSync({dir_->path()});
  ASSERT_TRUE(fs.ok()) << fs.status().toString();
  SyncBarrier barrier(std::move(*fs));
  ok(barrier.sync(barrier.mark()));
  // A began writing; then B's syncfs failed (it may have written back A's pages, which are
  // then lost); A's own later syncfs succeeds, and A must still hear of the failure.
  const uint64_t a = barrier.mark();
  env_->failAfterSyncs(0);
  EXPECT_EQ(barrier.sync(barrier.mark()).code(), Code::kIoError);  // B
  env_->clearFaults();
  EXPECT_EQ(barrier.sync(a).code(), Code::kIoError);
  // C began after the failure: nothing of C's was written back by the failed syncfs.
  ok(barrier.sync(barrier.mark()));
  EXPECT_EQ(barrier.stats().syncs, 4u);
  EXPECT_EQ(barrier.stats().failures, 1u);
}

}  // namespace
}  // namespace darius::io
