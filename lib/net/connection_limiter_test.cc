// ConnectionLimiter on its own: admission, eviction of the oldest connection that has not
// authenticated, refusal when nothing can be evicted, and the eviction/login race. Evictors
// here only record that they ran; connection_test.cc has the same policy on real sockets.
#include "lib/net/connection_limiter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace darius::net {
namespace {

using namespace std::chrono_literals;

// Evictors that record which connections were chosen, by name.
class Evictions {
 public:
  ConnectionLimiter::Evictor of(std::string name) {
    return [this, name = std::move(name)] { chosen.push_back(name); };
  }
  std::vector<std::string> chosen;
};

TEST(ConnectionLimiter, TotalAndPerHostWithoutEvictors) {
  ConnectionLimiter lim(3, 2);
  auto a1 = lim.tryAcquire("a");
  auto a2 = lim.tryAcquire("a");
  EXPECT_TRUE(a1 && a2);
  EXPECT_FALSE(lim.tryAcquire("a"));  // per-host limit, and nothing may be evicted
  auto b1 = lim.tryAcquire("b");
  EXPECT_TRUE(b1);
  EXPECT_FALSE(lim.tryAcquire("c"));  // total limit
  EXPECT_EQ(lim.active(), 3u);
  a1.reset();
  EXPECT_EQ(lim.activeFor("a"), 1u);
  EXPECT_TRUE(lim.tryAcquire("c"));   // temporary ticket released at once
  EXPECT_EQ(lim.active(), 2u);
  EXPECT_EQ(lim.activeFor("c"), 0u);
}

TEST(ConnectionLimiter, TicketsMove) {
  ConnectionLimiter lim(1, 1);
  auto t = lim.tryAcquire("h");
  ASSERT_TRUE(t);
  ConnectionLimiter::Ticket moved = std::move(*t);
  t.reset();
  EXPECT_EQ(lim.active(), 1u);
  { auto gone = std::move(moved); }
  EXPECT_EQ(lim.active(), 0u);
}

// The case of issue 16: idle connections that never log in no longer lock the host out.
TEST(ConnectionLimiter, AtTheHostLimitTheOldestNotAuthenticatedMakesRoom) {
  ConnectionLimiter lim(100, 3);
  Evictions ev;
  auto a1 = lim.tryAcquire("a", ev.of("a1"));
  auto a2 = lim.tryAcquire("a", ev.of("a2"));
  auto a3 = lim.tryAcquire("a", ev.of("a3"));
  auto b1 = lim.tryAcquire("b", ev.of("b1"));
  ASSERT_TRUE(a1 && a2 && a3 && b1);
  a1->markAuthenticated();  // the oldest, but logged in: never chosen
  auto a4 = lim.tryAcquire("a", ev.of("a4"));
  ASSERT_TRUE(a4);
  EXPECT_EQ(ev.chosen, std::vector<std::string>{"a2"});
  EXPECT_EQ(lim.activeFor("a"), 3u);  // a2's slot went to a4
  EXPECT_EQ(lim.active(), 4u);
  // The evicted ticket's end gives nothing back twice.
  a2.reset();
  EXPECT_EQ(lim.activeFor("a"), 3u);
  EXPECT_EQ(lim.active(), 4u);
  auto a5 = lim.tryAcquire("a", ev.of("a5"));
  ASSERT_TRUE(a5);
  EXPECT_EQ(ev.chosen, (std::vector<std::string>{"a2", "a3"}));  // b1 is another host's
}

TEST(ConnectionLimiter, RefusesWhenEveryConnectionOfTheHostIsAuthenticated) {
  ConnectionLimiter lim(100, 2);
  Evictions ev;
  auto a1 = lim.tryAcquire("a", ev.of("a1"));
  auto a2 = lim.tryAcquire("a", ev.of("a2"));
  ASSERT_TRUE(a1 && a2);
  a1->markAuthenticated();
  a2->markAuthenticated();
  EXPECT_FALSE(lim.tryAcquire("a", ev.of("a3")));
  EXPECT_TRUE(ev.chosen.empty());
  EXPECT_EQ(lim.activeFor("a"), 2u);
  EXPECT_TRUE(lim.tryAcquire("b", ev.of("b1")));  // other hosts are not affected
}

// LMTP acquires without an evictor: such a connection is never chosen.
TEST(ConnectionLimiter, AConnectionWithoutEvictorIsNeverChosen) {
  ConnectionLimiter lim(100, 2);
  Evictions ev;
  auto lmtp = lim.tryAcquire("a");
  auto imap = lim.tryAcquire("a", ev.of("imap"));
  ASSERT_TRUE(lmtp && imap);
  auto next = lim.tryAcquire("a", ev.of("next"));
  ASSERT_TRUE(next);
  EXPECT_EQ(ev.chosen, std::vector<std::string>{"imap"});
  auto lmtp2 = lim.tryAcquire("a");
  ASSERT_TRUE(lmtp2);
  EXPECT_EQ(ev.chosen, (std::vector<std::string>{"imap", "next"}));
  EXPECT_FALSE(lim.tryAcquire("a", ev.of("last")));  // only LMTP left: refused
  EXPECT_EQ(ev.chosen.size(), 2u);
}

// max_connections follows the same policy, over every host: the oldest of all goes.
TEST(ConnectionLimiter, AtTheTotalLimitTheOldestOfAnyHostMakesRoom) {
  ConnectionLimiter lim(3, 10);
  Evictions ev;
  auto a1 = lim.tryAcquire("a", ev.of("a1"));
  auto b1 = lim.tryAcquire("b", ev.of("b1"));
  auto b2 = lim.tryAcquire("b", ev.of("b2"));
  ASSERT_TRUE(a1 && b1 && b2);
  a1->markAuthenticated();
  auto c1 = lim.tryAcquire("c", ev.of("c1"));
  ASSERT_TRUE(c1);
  EXPECT_EQ(ev.chosen, std::vector<std::string>{"b1"});
  EXPECT_EQ(lim.active(), 3u);
  EXPECT_EQ(lim.activeFor("b"), 1u);
  b2->markAuthenticated();
  c1->markAuthenticated();
  EXPECT_FALSE(lim.tryAcquire("d", ev.of("d1")));
  EXPECT_EQ(ev.chosen.size(), 1u);
}

// Both limits at once: one eviction of the newcomer's own host frees a slot under both.
TEST(ConnectionLimiter, BothLimitsAreMetByOneEvictionOfTheSameHost) {
  ConnectionLimiter lim(3, 2);
  Evictions ev;
  auto b1 = lim.tryAcquire("b", ev.of("b1"));  // the oldest overall
  auto a1 = lim.tryAcquire("a", ev.of("a1"));
  auto a2 = lim.tryAcquire("a", ev.of("a2"));
  ASSERT_TRUE(b1 && a1 && a2);
  auto a3 = lim.tryAcquire("a", ev.of("a3"));
  ASSERT_TRUE(a3);
  EXPECT_EQ(ev.chosen, std::vector<std::string>{"a1"});  // the host's own, not b1
  EXPECT_EQ(lim.active(), 3u);
}

// The victim's login completes before it learns of its eviction: it stays, and counts.
TEST(ConnectionLimiter, ALoginThatWinsTheRaceIsCountedAgain) {
  ConnectionLimiter lim(100, 2);
  Evictions ev;
  auto a1 = lim.tryAcquire("a", ev.of("a1"));
  auto a2 = lim.tryAcquire("a", ev.of("a2"));
  auto a3 = lim.tryAcquire("a", ev.of("a3"));
  ASSERT_TRUE(a1 && a2 && a3);
  EXPECT_EQ(ev.chosen, std::vector<std::string>{"a1"});
  a1->markAuthenticated();
  EXPECT_EQ(lim.activeFor("a"), 3u);  // over the limit by one while a1 lasts
  EXPECT_EQ(lim.active(), 3u);
  // Over the limit, one eviction would not be enough: refused, and nobody is closed.
  EXPECT_FALSE(lim.tryAcquire("a", ev.of("a4")));
  EXPECT_EQ(ev.chosen.size(), 1u);
  a1.reset();
  EXPECT_EQ(lim.activeFor("a"), 2u);
  EXPECT_TRUE(lim.tryAcquire("a", ev.of("a5")));
  EXPECT_EQ(ev.chosen, (std::vector<std::string>{"a1", "a2"}));
  a2.reset();
  a3.reset();
  EXPECT_EQ(lim.active(), 0u);
}

// The evictor may call back into the limiter (it runs without the limiter's lock held).
TEST(ConnectionLimiter, EvictorsRunOutsideTheLock) {
  ConnectionLimiter lim(100, 1);
  size_t seen = 99;
  auto a1 = lim.tryAcquire("a", [&] { seen = lim.activeFor("a"); });
  ASSERT_TRUE(a1);
  ASSERT_TRUE(lim.tryAcquire("a"));
  EXPECT_EQ(seen, 1u);  // the newcomer's slot
}

// Gives an evictor that, when its last copy goes, asks the limiter from another thread and
// records whether the answer came (within a generous 5 s): that is, whether the evictor was
// destroyed with the lock released, as it must be, for what it holds (a Connection's last
// reference) may take locks as it goes.
struct LockProbe {
  explicit LockProbe(ConnectionLimiter& l) : lim(l) {}
  ConnectionLimiter::Evictor evictor() {
    std::shared_ptr<void> token(nullptr, [this](void*) {
      asked = std::async(std::launch::async, [this] { return lim.active(); });
      lock_was_free = asked.wait_for(5s) == std::future_status::ready;
    });
    return [token] {};
  }
  ConnectionLimiter& lim;
  std::future<size_t> asked;  // waited for at destruction, once the lock is free
  std::optional<bool> lock_was_free;
};

TEST(ConnectionLimiter, EvictorsAreDestroyedOutsideTheLock) {
  ConnectionLimiter lim(100, 2);
  LockProbe at_login(lim), at_release(lim);
  auto a1 = lim.tryAcquire("a", at_login.evictor());
  auto a2 = lim.tryAcquire("a", at_release.evictor());
  ASSERT_TRUE(a1 && a2);
  a1->markAuthenticated();  // a1's evictor is no longer needed
  a2.reset();
  EXPECT_EQ(at_login.lock_was_free, true);
  EXPECT_EQ(at_release.lock_was_free, true);
}

TEST(ConnectionLimiter, ConcurrentAcquireLoginAndRelease) {
  ConnectionLimiter lim(5, 2);  // one thread alone holds more than both limits allow
  std::atomic<int> evicted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<ConnectionLimiter::Ticket> held;
      for (int i = 0; i < 5000; ++i) {
        std::string host = "h" + std::to_string((t + i) % 3);
        auto ticket = lim.tryAcquire(host, [&] { ++evicted; });
        if (!ticket) continue;
        if (i % 3 == 0) ticket->markAuthenticated();
        held.push_back(std::move(*ticket));
        if (held.size() > 7) held.erase(held.begin());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(lim.active(), 0u);
  for (int h = 0; h < 3; ++h) EXPECT_EQ(lim.activeFor("h" + std::to_string(h)), 0u);
  EXPECT_GT(evicted.load(), 0);
}

}  // namespace
}  // namespace darius::net
