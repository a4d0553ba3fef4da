#include "lib/net/metrics.h"

#include <gtest/gtest.h>
#include <thread>

#include "lib/net/connection_limiter.h"

namespace darius::net {
namespace {

TEST(Metrics, RendersPrometheusText) {
  Metrics m;
  m.counter("darius_connections_total", "Connections accepted.", {{"service", "imap"}}) += 3;
  m.counter("darius_connections_total", "Connections accepted.", {{"service", "pop3"}})++;
  m.gauge("darius_connections_active", "Open connections.", {{"service", "imap"}}) = 2;
  m.callbackGauge("darius_uptime_seconds", "Seconds since start.", [] { return 1.5; });
  std::string t = m.render();
  EXPECT_NE(t.find("# TYPE darius_connections_total counter\n"), std::string::npos) << t;
  EXPECT_NE(t.find("darius_connections_total{service=\"imap\"} 3\n"), std::string::npos) << t;
  EXPECT_NE(t.find("darius_connections_total{service=\"pop3\"} 1\n"), std::string::npos) << t;
  EXPECT_NE(t.find("darius_connections_active{service=\"imap\"} 2\n"), std::string::npos) << t;
  EXPECT_NE(t.find("darius_uptime_seconds 1.500\n"), std::string::npos) << t;
}

TEST(Metrics, SameNameAndLabelsIsTheSameCounter) {
  Metrics m;
  auto& a = m.counter("x_total", "h", {{"k", "v"}});
  auto& b = m.counter("x_total", "h", {{"k", "v"}});
  EXPECT_EQ(&a, &b);
}

TEST(Metrics, EscapesLabelValues) {
  EXPECT_EQ(renderLabels({{"c", "a\"b\\c\nd"}}), "{c=\"a\\\"b\\\\c\\nd\"}");
}

TEST(Metrics, ConcurrentIncrements) {
  Metrics m;
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; ++i) {
    ts.emplace_back([&] {
      for (int j = 0; j < 10000; ++j) m.counter("c_total", "h", {{"s", "x"}})++;
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_NE(m.render().find("c_total{s=\"x\"} 40000\n"), std::string::npos);
}

TEST(ConnectionLimiter, TotalAndPerHost) {
  ConnectionLimiter lim(3, 2);
  auto a1 = lim.tryAcquire("a");
  auto a2 = lim.tryAcquire("a");
  EXPECT_TRUE(a1 && a2);
  EXPECT_FALSE(lim.tryAcquire("a"));  // per-host limit
  auto b1 = lim.tryAcquire("b");
  EXPECT_TRUE(b1);
  EXPECT_FALSE(lim.tryAcquire("c"));  // total limit
  EXPECT_EQ(lim.active(), 3u);
  a1.reset();
  EXPECT_EQ(lim.activeFor("a"), 1u);
  EXPECT_TRUE(lim.tryAcquire("c"));   // temporary ticket released at once
  EXPECT_EQ(lim.active(), 2u);
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

}  // namespace
}  // namespace darius::net
