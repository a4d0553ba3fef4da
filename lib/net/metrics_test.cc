#include "lib/net/metrics.h"

#include <gtest/gtest.h>
#include <thread>

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

}  // namespace
}  // namespace darius::net
