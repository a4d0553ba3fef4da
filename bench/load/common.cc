// bench/load: Result JSON, latency quantiles, process CPU time (see common.h).
#include "bench/load/common.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace darius::bench {

double Latencies::quantile(double q) const {
  if (samples_.empty()) return 0;
  std::vector<double> s = samples_;
  std::sort(s.begin(), s.end());
  size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(s.size()))) ;
  i = std::clamp<size_t>(i == 0 ? 0 : i - 1, 0, s.size() - 1);
  return s[i];
}

void Result::check(const std::string& name, bool passed, const std::string& detail) {
  checks[name] = passed ? "ok" : detail;
  if (!passed) wrong_result = true;
  if (!passed) throw WorkloadError("check " + name + " failed: " + detail);
}

std::string jsonEscape(const std::string& s) {
  std::string o;
  o.reserve(s.size() + 2);
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);  // bytes, not code points: logs only
          o += b;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o;
}

namespace {
std::string jsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}
}  // namespace

std::string Result::toJson() const {
  std::string o = "{\"workload\": \"" + jsonEscape(workload) + "\", \"ok\": " + (ok ? "true" : "false");
  o += std::string(", \"wrong_result\": ") + (wrong_result ? "true" : "false");
  o += ", \"error\": \"" + jsonEscape(error) + "\"";
  o += ", \"wall_s\": " + jsonNumber(wall_s) + ", \"client_cpu_s\": " + jsonNumber(client_cpu_s);
  o += ", \"server_cpu_s\": " + jsonNumber(server_cpu_s);
  o += ", \"server_user_s\": " + jsonNumber(server_user_s) + ", \"server_sys_s\": " + jsonNumber(server_sys_s);
  o += ", \"metrics\": {";
  bool first = true;
  for (auto& [k, v] : metrics) {
    o += (first ? "\"" : ", \"") + jsonEscape(k) + "\": " + jsonNumber(v);
    first = false;
  }
  o += "}, \"checks\": {";
  first = true;
  for (auto& [k, v] : checks) {
    o += (first ? "\"" : ", \"") + jsonEscape(k) + "\": \"" + jsonEscape(v) + "\"";
    first = false;
  }
  auto strings = [&](const char* name, const std::map<std::string, std::string>& m) {
    o += std::string("}, \"") + name + "\": {";
    bool f = true;
    for (auto& [k, v] : m) {
      o += (f ? "\"" : ", \"") + jsonEscape(k) + "\": \"" + jsonEscape(v) + "\"";
      f = false;
    }
  };
  strings("notes", notes);
  strings("not_applicable", not_applicable);
  o += "}, \"latency_ms\": {";
  first = true;
  for (auto& [k, l] : latency) {
    o += (first ? "\"" : ", \"") + jsonEscape(k) + "\": {\"n\": " + std::to_string(l.count()) +
         ", \"p50\": " + jsonNumber(l.quantile(0.5) * 1e3) +
         ", \"p99\": " + jsonNumber(l.quantile(0.99) * 1e3) + "}";
    first = false;
  }
  o += "}}";
  return o;
}

double processCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto tv = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return tv(ru.ru_utime) + tv(ru.ru_stime);
}

}  // namespace darius::bench
