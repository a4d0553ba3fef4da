#include "lib/net/thread_priority.h"

#include <gtest/gtest.h>

#include <asio/post.hpp>
#include <future>
#include <set>
#include <thread>

namespace darius::net {
namespace thread_priority_test {

TEST(ThreadPriorityTest, EveryThreadOfThePoolIsNicedAndOthersAreNot) {
  const int before = threadNice();
  if (before >= 7) GTEST_SKIP() << "this process already runs at nice " << before;
  constexpr unsigned kThreads = 4;
  asio::thread_pool pool(kThreads);
  ASSERT_TRUE(lowerPoolPriority(pool, kThreads, 7).isOk());
  // Many tasks, so every thread of the pool runs some: each must see nice 7.
  std::vector<std::future<int>> seen;
  for (int i = 0; i < 64; ++i) {
    auto task = std::make_shared<std::promise<int>>();
    seen.push_back(task->get_future());
    asio::post(pool, [task] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      task->set_value(threadNice());
    });
  }
  for (auto& f : seen) EXPECT_EQ(f.get(), 7);
  EXPECT_EQ(threadNice(), before);  // the caller's own priority is left alone
  pool.join();
}

TEST(ThreadPriorityTest, NeverMadeLessNiceAndZeroIsANoOp) {
  std::promise<std::pair<int, int>> out;
  std::thread t([&] {
    EXPECT_TRUE(lowerThisThreadPriority(12).isOk());
    const int twelve = threadNice();
    EXPECT_TRUE(lowerThisThreadPriority(5).isOk());  // would need privilege: left at 12
    EXPECT_TRUE(lowerThisThreadPriority(0).isOk());
    out.set_value({twelve, threadNice()});
  });
  t.join();
  auto [twelve, after] = out.get_future().get();
  EXPECT_GE(twelve, 12);
  EXPECT_EQ(after, twelve);
}

TEST(ThreadPriorityTest, AThreadStartedByANicedThreadInheritsIt) {
  std::promise<int> child_nice;
  std::thread t([&] {
    EXPECT_TRUE(lowerThisThreadPriority(9).isOk());
    std::thread child([&] { child_nice.set_value(threadNice()); });
    child.join();
  });
  t.join();
  EXPECT_GE(child_nice.get_future().get(), 9);
}

}  // namespace thread_priority_test
}  // namespace darius::net
