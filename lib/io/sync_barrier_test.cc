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
  const uint64_t syncs = env_->syncCount();
  ok((*fs)->sync());
  EXPECT_EQ(env_->syncCount(), syncs + 1);
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
  std::thread first([&] { okays += barrier.sync().isOk(); });
  gate->awaitFirst();
  // Written while the first syncfs runs: it may have missed them, so they need another.
  std::vector<std::thread> later;
  for (int i = 0; i < 3; ++i) later.emplace_back([&] { okays += barrier.sync().isOk(); });
  while (barrier.stats().calls < 4) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  gate->open();
  first.join();
  for (auto& t : later) t.join();
  EXPECT_EQ(okays.load(), 4);
  EXPECT_EQ(barrier.stats().calls, 4u);
  EXPECT_EQ(barrier.stats().syncs, 2u);
}

TEST_F(FilesystemSyncTest, BarrierHandsAFailureToItsGroupOnly) {
  auto fs = env_->openFilesystemSync({dir_->path()});
  ASSERT_TRUE(fs.ok()) << fs.status().toString();
  SyncBarrier barrier(std::move(*fs));
  ok(barrier.sync());
  env_->failAfterSyncs(0);
  EXPECT_EQ(barrier.sync().code(), Code::kIoError);
  env_->clearFaults();
  ok(barrier.sync());
  EXPECT_EQ(barrier.stats().syncs, 3u);
}

}  // namespace
}  // namespace darius::io
