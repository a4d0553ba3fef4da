// Metrics: a registry of counters and gauges rendered in the Prometheus text exposition format
// (version 0.0.4). The server owns one registry and hands it to every service; services keep
// the references it returns and bump them on their hot paths (a relaxed atomic add).
//
// Ownership: the registry owns every metric; references stay valid for its lifetime.
// Thread-safety: all methods may be called from any thread; lookups take a mutex, updates
// through the returned references are lock-free.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace darius::net {

using Labels = std::vector<std::pair<std::string, std::string>>;

class Metrics {
 public:
  // A monotonically increasing count (name should end in _total).
  std::atomic<uint64_t>& counter(std::string_view name, std::string_view help,
                                 const Labels& labels = {});
  // A value that goes up and down (active connections).
  std::atomic<int64_t>& gauge(std::string_view name, std::string_view help,
                              const Labels& labels = {});
  // A gauge computed when scraped (uptime). Replaces an earlier callback of the same name.
  void callbackGauge(std::string_view name, std::string_view help, std::function<double()> fn);

  std::string render() const;

 private:
  struct Family {
    std::string help;
    std::string type;  // "counter" or "gauge"
    std::map<std::string, std::unique_ptr<std::atomic<uint64_t>>> counters;  // by label text
    std::map<std::string, std::unique_ptr<std::atomic<int64_t>>> gauges;
    std::function<double()> callback;
  };
  Family& family(std::string_view name, std::string_view help, std::string_view type);

  mutable std::mutex mu_;
  std::map<std::string, Family, std::less<>> families_;
};

// Renders {a="x",b="y"} with Prometheus escaping; empty labels give "".
std::string renderLabels(const Labels& labels);

}  // namespace darius::net
