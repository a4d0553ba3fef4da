#include "lib/net/metrics.h"

#include <cmath>
#include <cstdio>

namespace darius::net {

std::string renderLabels(const Labels& labels) {
  if (labels.empty()) return {};
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) out += ',';
    first = false;
    out += k;
    out += "=\"";
    for (char c : v) {
      if (c == '\\') out += "\\\\";
      else if (c == '"') out += "\\\"";
      else if (c == '\n') out += "\\n";
      else out += c;
    }
    out += '"';
  }
  out += '}';
  return out;
}

Metrics::Family& Metrics::family(std::string_view name, std::string_view help,
                                 std::string_view type) {
  auto it = families_.find(name);
  if (it == families_.end()) {
    it = families_.emplace(std::string(name), Family{}).first;
    it->second.help = std::string(help);
    it->second.type = std::string(type);
  }
  return it->second;
}

std::atomic<uint64_t>& Metrics::counter(std::string_view name, std::string_view help,
                                        const Labels& labels) {
  std::lock_guard lock(mu_);
  auto& slot = family(name, help, "counter").counters[renderLabels(labels)];
  if (!slot) slot = std::make_unique<std::atomic<uint64_t>>(0);
  return *slot;
}

std::atomic<int64_t>& Metrics::gauge(std::string_view name, std::string_view help,
                                     const Labels& labels) {
  std::lock_guard lock(mu_);
  auto& slot = family(name, help, "gauge").gauges[renderLabels(labels)];
  if (!slot) slot = std::make_unique<std::atomic<int64_t>>(0);
  return *slot;
}

void Metrics::callbackGauge(std::string_view name, std::string_view help,
                            std::function<double()> fn) {
  std::lock_guard lock(mu_);
  family(name, help, "gauge").callback = std::move(fn);
}

std::string Metrics::render() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& [name, f] : families_) {
    out += "# HELP " + name + " " + f.help + "\n";
    out += "# TYPE " + name + " " + f.type + "\n";
    for (const auto& [labels, v] : f.counters) {
      out += name + labels + " " + std::to_string(v->load(std::memory_order_relaxed)) + "\n";
    }
    for (const auto& [labels, v] : f.gauges) {
      out += name + labels + " " + std::to_string(v->load(std::memory_order_relaxed)) + "\n";
    }
    if (f.callback) {
      char buf[64];
      double d = f.callback();
      if (std::isfinite(d)) {
        std::snprintf(buf, sizeof buf, "%.3f", d);
      } else {
        std::snprintf(buf, sizeof buf, "NaN");
      }
      out += name + " " + buf + "\n";
    }
  }
  return out;
}

}  // namespace darius::net
