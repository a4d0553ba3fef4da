#include "lib/io/task_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <thread>

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
