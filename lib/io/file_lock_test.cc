#include "lib/io/file_lock.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "lib/io/temp_dir.h"

namespace darius::io {
namespace {

using base::Code;
using namespace std::chrono_literals;

class FileLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::create("file_lock_test");
    ASSERT_TRUE(dir.ok()) << dir.status().toString();
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
    lock_path_ = dir_->file("mailbox.lock");
  }
  std::unique_ptr<TempDir> dir_;
  std::string lock_path_;
};

// Runs `child` in a forked process; returns its exit code (or 100 + signal number).
template <typename F>
int inChild(F child) {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(child());
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return -1;
  if (WIFSIGNALED(status)) return 100 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

TEST_F(FileLockTest, AcquireCreatesTheLockFile) {
  auto lock = FileLock::acquire(lock_path_, LockMode::kExclusive, false);
  ASSERT_TRUE(lock.ok()) << lock.status().toString();
  EXPECT_TRUE(lock->held());
  EXPECT_EQ(lock->mode(), LockMode::kExclusive);
  EXPECT_EQ(::access(lock_path_.c_str(), F_OK), 0);
  lock->unlock();
  EXPECT_FALSE(lock->held());
  lock->unlock();  // idempotent
}

TEST_F(FileLockTest, AcquireFailsInAMissingDirectory) {
  auto lock = FileLock::acquire(dir_->file("no/such/dir/lock"), LockMode::kShared, false);
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.status().code(), Code::kNotFound);
}

// The point of OFD locks: two locks of one process on one file exclude each other.
TEST_F(FileLockTest, ExclusiveLocksInOneProcessExcludeEachOther) {
  auto first = FileLock::acquire(lock_path_, LockMode::kExclusive, false);
  ASSERT_TRUE(first.ok());
  auto second = FileLock::acquire(lock_path_, LockMode::kExclusive, false);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kLocked);
  auto reader = FileLock::acquire(lock_path_, LockMode::kShared, false);
  EXPECT_EQ(reader.status().code(), Code::kLocked);
  first->unlock();
  auto third = FileLock::acquire(lock_path_, LockMode::kExclusive, false);
  EXPECT_TRUE(third.ok()) << third.status().toString();
}

TEST_F(FileLockTest, SharedLocksCoexistAndKeepWritersOut) {
  auto r1 = FileLock::acquire(lock_path_, LockMode::kShared, false);
  auto r2 = FileLock::acquire(lock_path_, LockMode::kShared, false);
  ASSERT_TRUE(r1.ok());
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(FileLock::acquire(lock_path_, LockMode::kExclusive, false).status().code(),
            Code::kLocked);
  r1->unlock();
  EXPECT_EQ(FileLock::acquire(lock_path_, LockMode::kExclusive, false).status().code(),
            Code::kLocked);
  r2->unlock();
  EXPECT_TRUE(FileLock::acquire(lock_path_, LockMode::kExclusive, false).ok());
}

TEST_F(FileLockTest, DestructorAndMoveRelease) {
  {
    auto lock = FileLock::acquire(lock_path_, LockMode::kExclusive, false);
    ASSERT_TRUE(lock.ok());
    FileLock moved = std::move(lock).value();
    EXPECT_TRUE(moved.held());
    FileLock target;
    EXPECT_FALSE(target.held());
    target = std::move(moved);
    EXPECT_FALSE(moved.held());  // NOLINT(bugprone-use-after-move): documented state
    EXPECT_TRUE(target.held());
    EXPECT_FALSE(FileLock::acquire(lock_path_, LockMode::kExclusive, false).ok());
  }
  EXPECT_TRUE(FileLock::acquire(lock_path_, LockMode::kExclusive, false).ok());
}

TEST_F(FileLockTest, ThreadsExcludeEachOther) {
  auto held = FileLock::acquire(lock_path_, LockMode::kExclusive, false);
  ASSERT_TRUE(held.ok());
  std::atomic<bool> released{false};
  std::atomic<bool> other_got_it{false};
  std::atomic<bool> saw_release_first{false};
  Code try_code = Code::kOk;
  std::thread other([&] {
    try_code = FileLock::acquire(lock_path_, LockMode::kShared, false).status().code();
    auto waited = FileLock::acquire(lock_path_, LockMode::kExclusive, true);
    saw_release_first = released.load();
    other_got_it = waited.ok();
  });
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(other_got_it.load());
  released = true;
  held->unlock();
  other.join();
  EXPECT_EQ(try_code, Code::kLocked);
  EXPECT_TRUE(other_got_it.load());
  EXPECT_TRUE(saw_release_first.load());
}

// Many threads incrementing a counter in a file under the lock: no update is lost.
TEST_F(FileLockTest, ThreadsSerialiseReadModifyWrite) {
  std::string counter_path = dir_->file("counter");
  {
    auto fd = openFile(counter_path, O_WRONLY | O_CREAT | O_TRUNC);
    ASSERT_TRUE(fd.ok());
    ASSERT_TRUE(writeAll(fd->get(), "0").isOk());
  }
  constexpr int kThreads = 4, kRounds = 50;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) {
        auto lock = FileLock::acquire(lock_path_, LockMode::kExclusive, true);
        auto fd = openFile(counter_path, O_RDWR);
        if (!lock.ok() || !fd.ok()) {
          ++failures;
          continue;
        }
        int value = std::stoi(*readAll(fd->get()));
        std::this_thread::yield();  // widen the race window
        std::string next = std::to_string(value + 1);
        if (!pwriteAll(fd->get(), 0, next).isOk()) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto fd = openFile(counter_path, O_RDONLY);
  ASSERT_TRUE(fd.ok());
  EXPECT_EQ(*readAll(fd->get()), std::to_string(kThreads * kRounds));
}

TEST_F(FileLockTest, ExcludesAForkedChild) {
  auto held = FileLock::acquire(lock_path_, LockMode::kExclusive, false);
  ASSERT_TRUE(held.ok());
  int code = inChild([&] {
    auto lock = FileLock::acquire(lock_path_, LockMode::kShared, false);
    return lock.status().code() == Code::kLocked ? 0 : 1;
  });
  EXPECT_EQ(code, 0);
  held->unlock();
  code = inChild(
      [&] { return FileLock::acquire(lock_path_, LockMode::kExclusive, false).ok() ? 0 : 1; });
  EXPECT_EQ(code, 0);
}

TEST_F(FileLockTest, ForkedChildWaitsForTheParent) {
  auto held = FileLock::acquire(lock_path_, LockMode::kExclusive, false);
  ASSERT_TRUE(held.ok());
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  UniqueFd rd(pipe_fds[0]), wr(pipe_fds[1]);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    rd.reset();
    held->unlock();  // no-op for the parent: just drop our inherited copy of the fd...
    // ...which, with OFD locks, does NOT release the parent's lock: the description stays open
    // in the parent.
    auto lock = FileLock::acquire(lock_path_, LockMode::kExclusive, true);
    char c = lock.ok() ? 'y' : 'n';
    ::_exit(::write(wr.get(), &c, 1) == 1 ? 0 : 1);
  }
  wr.reset();
  struct pollfd p = {rd.get(), POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 300), 0) << "child got the lock while the parent held it";
  held->unlock();
  char c = 0;
  EXPECT_EQ(::read(rd.get(), &c, 1), 1);
  EXPECT_EQ(c, 'y');
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

// The classic fcntl trap: with process-owned locks, closing any other fd of the file drops
// the lock. With OFD locks it must not.
TEST_F(FileLockTest, ClosingAnotherFdOfTheFileKeepsTheLock) {
  auto held = FileLock::acquire(lock_path_, LockMode::kExclusive, false);
  ASSERT_TRUE(held.ok());
  {
    auto peek = openFile(lock_path_, O_RDONLY);
    ASSERT_TRUE(peek.ok());
  }  // closed here
  int code = inChild([&] {
    return FileLock::acquire(lock_path_, LockMode::kExclusive, false).status().code() ==
                   Code::kLocked
               ? 0
               : 1;
  });
  EXPECT_EQ(code, 0);
}

TEST_F(FileLockTest, AcquireFdLocksWithoutOwning) {
  auto fd = openFile(dir_->file("index"), O_RDWR | O_CREAT);
  ASSERT_TRUE(fd.ok());
  {
    auto lock = FileLock::acquireFd(fd->get(), LockMode::kExclusive, false);
    ASSERT_TRUE(lock.ok()) << lock.status().toString();
    EXPECT_EQ(lock->fd(), fd->get());
    auto other = FileLock::acquire(dir_->file("index"), LockMode::kShared, false);
    EXPECT_EQ(other.status().code(), Code::kLocked);
  }
  // The FileLock is gone: the fd stays open, the lock is released.
  EXPECT_NE(::fcntl(fd->get(), F_GETFD), -1);
  EXPECT_TRUE(FileLock::acquire(dir_->file("index"), LockMode::kExclusive, false).ok());
}

TEST_F(FileLockTest, AcquireFdWaitsAndNeedsTheRightAccessMode) {
  auto wronly = openFile(dir_->file("w"), O_WRONLY | O_CREAT);
  ASSERT_TRUE(wronly.ok());
  EXPECT_FALSE(FileLock::acquireFd(wronly->get(), LockMode::kShared, false).ok());
  EXPECT_TRUE(FileLock::acquireFd(wronly->get(), LockMode::kExclusive, true).ok());
  EXPECT_FALSE(FileLock::acquireFd(-1, LockMode::kExclusive, false).ok());
}

// A lock file unlinked while someone waits for it: the waiter must not end up holding a lock
// on the orphaned inode while a newcomer locks the new file.
TEST_F(FileLockTest, LockFileReplacedWhileWaiting) {
  auto held = FileLock::acquire(lock_path_, LockMode::kExclusive, false);
  ASSERT_TRUE(held.ok());
  std::atomic<bool> done{false};
  FileLock waiter_lock;
  std::thread waiter([&] {
    auto lock = FileLock::acquire(lock_path_, LockMode::kExclusive, true);
    if (lock.ok()) waiter_lock = std::move(lock).value();
    done = true;
  });
  std::this_thread::sleep_for(100ms);
  ASSERT_EQ(::unlink(lock_path_.c_str()), 0);
  held->unlock();
  waiter.join();
  ASSERT_TRUE(done.load());
  ASSERT_TRUE(waiter_lock.held());
  // The waiter must hold the lock on the file now at lock_path_.
  EXPECT_EQ(FileLock::acquire(lock_path_, LockMode::kExclusive, false).status().code(),
            Code::kLocked);
}

}  // namespace
}  // namespace darius::io
