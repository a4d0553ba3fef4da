#include "lib/io/task_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include "lib/io/env.h"

namespace darius::io {
namespace {

using base::Status;

TEST(TaskPool, RunsEveryTaskAndReturnsTheFirstErrorInOrder) {
  TaskPool pool(3);
  std::atomic<int> ran{0};
  std::vector<std::function<Status()>> tasks = {
      [&] { ++ran; return Status::ok(); },
      [&] { ++ran; return Status::ioError("second"); },
      [&] { ++ran; return Status::ok(); },
      [&] { ++ran; return Status::ioError("fourth"); },
  };
  Status s = pool.runAll(tasks);
  EXPECT_EQ(ran.load(), 4);
  EXPECT_EQ(s.code(), base::Code::kIoError);
  EXPECT_NE(s.toString().find("second"), std::string::npos) << s.toString();
  EXPECT_TRUE(pool.runAll({}).isOk());
}

TEST(TaskPool, TasksRunAtOnce) {
  // Three tasks that each wait until all three have started: only finishes if they overlap.
  TaskPool pool(2);
  std::latch all_started(3);
  auto task = [&] {
    all_started.arrive_and_wait();
    return Status::ok();
  };
  std::vector<std::function<Status()>> tasks = {task, task, task};
  EXPECT_TRUE(pool.runAll(tasks).isOk());
}

TEST(TaskPool, CallerRunsWhatBusyWorkersCannot) {
  // One worker, blocked by another caller's task: a second caller still finishes its batch
  // by running its queued tasks itself.
  TaskPool pool(1);
  std::atomic<bool> release{false};
  std::atomic<bool> blocker_started{false};
  std::thread other([&] {
    std::vector<std::function<Status()>> tasks = {
        [] { return Status::ok(); },
        [&] {
          blocker_started = true;
          while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          return Status::ok();
        },
    };
    EXPECT_TRUE(pool.runAll(tasks).isOk());
  });
  while (!blocker_started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::atomic<int> ran{0};
  std::vector<std::function<Status()>> mine(5, [&] {
    ++ran;
    return Status::ok();
  });
  EXPECT_TRUE(pool.runAll(mine).isOk());
  EXPECT_EQ(ran.load(), 5);
  release = true;
  other.join();
}

TEST(TaskPool, ManyCallersAtOnce) {
  TaskPool pool(4);
  std::atomic<int> ran{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 8; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 200; ++round) {
        std::vector<std::function<Status()>> tasks(3, [&] {
          ++ran;
          return Status::ok();
        });
        EXPECT_TRUE(pool.runAll(tasks).isOk());
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(ran.load(), 8 * 200 * 3);
}

TEST(TaskPool, AForkedChildRunsTasksItself) {
  // A child made while the parent's workers wait on, or are being woken through, the pool's
  // condition variable and mutex inherits them mid-use without the workers; using the pool
  // there hung the multi-process mailbox test. Fork while another thread keeps the pool busy.
  TaskPool pool(3);
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    std::vector<std::function<Status()>> tasks(4, [] { return Status::ok(); });
    while (!stop.load()) (void)pool.runAll(tasks);
  });
  int hung = 0, failed = 0;
  // Made before the fork: the child must not allocate, since another thread may hold the
  // allocator's lock at that instant (ASan's allocator is not fork-safe), which would hang the
  // child for a reason that is not the pool's.
  int ran = 0;
  std::vector<std::function<Status()>> tasks(5, [&ran] { ++ran; return Status::ok(); });
  for (int child_no = 0; child_no < 20; ++child_no) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::alarm(5);  // a hang ends the child by SIGALRM, which the parent counts
      for (int round = 0; round < 20; ++round) {
        if (!pool.runAll(tasks).isOk()) ::_exit(2);
      }
      ::_exit(ran == 100 ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    if (!WIFEXITED(status)) ++hung;
    else if (WEXITSTATUS(status) != 0) ++failed;
  }
  stop = true;
  busy.join();
  EXPECT_EQ(hung, 0);
  EXPECT_EQ(failed, 0);
}

TEST(TaskPool, AChildForkedRightAfterConstructionCanAllocate) {
  // A worker that is still starting up allocates (its thread state, TLS); a fork at that
  // instant left the child with the allocator's lock held by a thread it does not have, and
  // under ASan (whose allocator has no fork handlers) the child's first allocation hung. The
  // constructor returns only once every worker is parked, so forking right after it is safe.
  int hung = 0;
  for (int round = 0; round < 200 && hung == 0; ++round) {
    auto pool = std::make_unique<TaskPool>(8);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::alarm(5);
      std::vector<std::unique_ptr<std::string>> v;
      for (int i = 0; i < 1000; ++i) v.push_back(std::make_unique<std::string>(64, 'x'));
      ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++hung;
  }
  EXPECT_EQ(hung, 0);
}

TEST(EnvRunConcurrently, PosixRunsTasksAtOnceAndTheDefaultInOrder) {
  std::latch both(2);
  auto meet = [&] {
    both.arrive_and_wait();
    return Status::ok();
  };
  std::vector<std::function<Status()>> tasks = {meet, meet};
  EXPECT_TRUE(Env::posix()->runConcurrently(tasks).isOk());

  std::vector<int> order;
  std::vector<std::function<Status()>> seq = {
      [&] { order.push_back(1); return Status::ok(); },
      [&] { order.push_back(2); return Status::ioError("x"); },
      [&] { order.push_back(3); return Status::ok(); },
  };
  EXPECT_FALSE(Env::posix()->Env::runConcurrently(seq).isOk());
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

}  // namespace
}  // namespace darius::io
