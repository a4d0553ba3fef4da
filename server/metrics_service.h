// MetricsService: the HTTP endpoint that serves the Prometheus text exposition of the
// server's Metrics registry at GET /metrics, one request per connection. It is meant for a
// loopback or management address; it exposes counts only, never user data.
//
// Ownership: borrows the registry, which the ServerHost owns and keeps alive for run().
// Thread-safety: serve() runs concurrently; Metrics is thread-safe.
#pragma once

#include "lib/net/metrics.h"
#include "lib/net/service.h"

namespace darius::server {

class MetricsService : public net::Service {
 public:
  explicit MetricsService(net::Metrics& metrics);
  std::string_view name() const override { return "metrics"; }
  net::ReaderLimits limits() const override { return {.max_line = 8192, .max_literal = 0}; }
  std::chrono::milliseconds initialTimeout() const override { return std::chrono::seconds(10); }
  asio::awaitable<void> serve(std::shared_ptr<net::Connection> conn) override;

 private:
  net::Metrics& metrics_;
  std::atomic<uint64_t>& requests_;
};

}  // namespace darius::server
