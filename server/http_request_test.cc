#include "server/http_request.h"

#include <gtest/gtest.h>

namespace darius::server {
namespace {

TEST(HttpRequestParser, ParsesAScrape) {
  HttpRequestParser p;
  auto r = p.feedLine("GET /metrics?x=1 HTTP/1.1");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  ASSERT_TRUE(p.feedLine("Host: localhost:9100").ok());
  ASSERT_TRUE(p.feedLine("Accept: */*").ok());
  r = p.feedLine("");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(*r);
  EXPECT_EQ((*r)->method, "GET");
  EXPECT_EQ((*r)->path, "/metrics");
  EXPECT_EQ((*r)->query, "x=1");
}

TEST(HttpRequestParser, RejectsMalformed) {
  for (std::string bad : {"GET", "GET /metrics", "get /metrics HTTP/1.1", "GET metrics HTTP/1.1",
                          "GET /a b HTTP/1.1", "GET /\x01 HTTP/1.1", "GET /  HTTP/1.1", ""}) {
    HttpRequestParser p;
    EXPECT_FALSE(p.feedLine(bad).ok()) << bad;
  }
  HttpRequestParser v;
  auto r = v.feedLine("GET / HTTP/2.0");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), base::Code::kNotSupported);
}

TEST(HttpRequestParser, BadHeaderAndTooManyHeaders) {
  HttpRequestParser p(3);
  ASSERT_TRUE(p.feedLine("GET / HTTP/1.0").ok());
  EXPECT_FALSE(p.feedLine(" folded").ok());
  HttpRequestParser q(2);
  ASSERT_TRUE(q.feedLine("GET / HTTP/1.0").ok());
  ASSERT_TRUE(q.feedLine("A: 1").ok());
  ASSERT_TRUE(q.feedLine("B: 2").ok());
  auto r = q.feedLine("C: 3");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), base::Code::kTooBig);
}

}  // namespace
}  // namespace darius::server
