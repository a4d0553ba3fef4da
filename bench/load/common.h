// bench/load: shared pieces of the load client — the failure type a workload throws, the
// JSON result a workload fills, latency recording and clocks.
//
// Ownership: a Result is filled by one workload and printed once by main. A Latencies
// object belongs to one thread; threads merge theirs into the Result at the end (merge is
// not thread-safe; callers hold a mutex or merge after join).
//
// Error model: inside this benchmark binary a workload reports "the server could not do
// this" by throwing WorkloadError; main turns it into {"ok": false, "error": ...} and exit
// code 0, because a server that lacks a command is a result, not a harness failure. A bug
// in the harness itself (bad arguments, unreadable corpus) exits with code 2.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace darius::bench {

using Clock = std::chrono::steady_clock;

// A count as the text of a reported number.
inline std::string countText(size_t v) { return std::to_string(v); }

inline double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The server failed or lacks the workload: reported in the row, never aborts the run.
class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The harness is broken (usage, corpus, local system call): exit code 2.
class HarnessError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Latency samples of one command kind, in seconds.
class Latencies {
 public:
  void add(double s) { samples_.push_back(s); }
  void merge(const Latencies& o) { samples_.insert(samples_.end(), o.samples_.begin(), o.samples_.end()); }
  size_t count() const { return samples_.size(); }
  // q in [0,1]; 0 when empty. Sorts a copy.
  double quantile(double q) const;

 private:
  std::vector<double> samples_;
};

// What one workload reports: named numbers, named check outcomes, and per-command latency.
struct Result {
  std::string workload;
  bool ok = true;
  bool wrong_result = false;  // failed by a correctness check, not by a refusal: timings stand
  std::string error;
  std::map<std::string, double> metrics;
  std::map<std::string, std::string> checks;  // name -> "ok" or "expected X got Y"
  std::map<std::string, Latencies> latency;   // command -> samples
  std::map<std::string, std::string> notes;   // free text for the reader (a command's output)
  // Rows this server cannot have (Dovecot has no delayed expunge): metric -> why. The table
  // shows "n/a"; report.check_failures accepts it from an anchor only.
  std::map<std::string, std::string> not_applicable;
  double wall_s = 0;
  double client_cpu_s = 0;
  double server_cpu_s = -1;  // -1: not measured
  double server_user_s = -1;  // server_cpu_s split: user time (utime + cutime)
  double server_sys_s = -1;   // ... and kernel time (stime + cstime)

  // Records a correctness check; a failed check makes the workload fail with that reason
  // and marks the result wrong (its timings are still reported, flagged).
  void check(const std::string& name, bool passed, const std::string& detail);
  std::string toJson() const;
};

std::string jsonEscape(const std::string& s);

// CPU seconds (user+system) used by this process so far.
double processCpuSeconds();

}  // namespace darius::bench
