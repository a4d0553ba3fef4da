// bench/load: "imap_idle_sessions" — N concurrent authenticated IMAP sessions held open,
// the server's memory per session from /proc (PSS and RSS summed over its process tree),
// and how many sessions per second it establishes.
//
// `conns` threads open sessions (connect, greeting, LOGIN) until N are up; all sockets are
// kept in this process (RLIMIT_NOFILE is raised to its hard limit). Adding stops early, and
// says so, when the server's PSS passes mem_budget_mb or the machine's MemAvailable falls
// under min_avail_mb: a process-per-session server at 10,000 sessions would otherwise push
// a shared 24 GiB machine into the OOM killer. Afterwards every session gets a NOOP, which
// must succeed (the sessions really are alive), and all are closed.
#include <sys/resource.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "bench/load/imap_client.h"
#include "bench/load/procmem.h"
#include "bench/load/workloads.h"

namespace darius::bench {

void runIdle(const Options& o, Result& r) {
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);
  size_t target = o.count;
  if (target + 64 > rl.rlim_cur) target = rl.rlim_cur - 64;

  if (o.server_pid > 0) {
    // Warm up (first login loads the user database, maps libraries), then take the baseline.
    ImapClient w = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
    w.login(o.user(1), o.password);
    w.logout();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  TreeUsage base = o.server_pid > 0 ? treeUsage(o.server_pid) : TreeUsage{};

  std::vector<ImapClient> sessions;
  sessions.reserve(target);
  std::mutex mu;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::string stop_reason, error;
  Latencies lat;
  auto t0 = Clock::now();
  auto worker = [&] {
    Latencies mine;
    for (size_t k; !stop && (k = next.fetch_add(1)) < target;) {
      try {
        auto t1 = Clock::now();
        ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
        im.login(o.user(1 + static_cast<int>(k % static_cast<size_t>(o.users))), o.password);
        mine.add(secondsSince(t1));
        std::lock_guard g(mu);
        sessions.push_back(std::move(im));
      } catch (const WorkloadError& e) {
        std::lock_guard g(mu);
        if (error.empty()) error = "session " + std::to_string(k) + ": " + e.what();
        stop = true;
      }
      if (k % 200 == 199) {
        uint64_t avail = memAvailableKb();
        bool low = avail < o.min_avail_mb * 1024;
        bool over = false;
        if (!low && o.server_pid > 0 && k % 1000 == 999) {
          over = treeUsage(o.server_pid).pss_kb > o.mem_budget_mb * 1024;
        }
        if (low || over) {
          std::lock_guard g(mu);
          if (stop_reason.empty()) {
            stop_reason = low ? "machine MemAvailable under " + std::to_string(o.min_avail_mb) + " MiB"
                              : "server PSS over " + std::to_string(o.mem_budget_mb) + " MiB";
          }
          stop = true;
        }
      }
    }
    std::lock_guard g(mu);
    lat.merge(mine);
  };
  std::vector<std::thread> ts;
  for (int i = 0; i < std::max(1, o.conns); ++i) ts.emplace_back(worker);
  for (auto& t : ts) t.join();
  double establish_s = secondsSince(t0);
  size_t n = sessions.size();

  r.metrics["sessions"] = static_cast<double>(n);
  r.metrics["sessions_target"] = static_cast<double>(o.count);
  r.metrics["sessions_per_s"] = static_cast<double>(n) / establish_s;
  r.latency["connect+login"] = lat;
  if (!stop_reason.empty()) r.checks["capped"] = "stopped at " + std::to_string(n) + ": " + stop_reason;

  if (o.server_pid > 0 && n > 0) {
    std::this_thread::sleep_for(std::chrono::seconds(2));  // let forked children settle
    TreeUsage u = treeUsage(o.server_pid);
    r.metrics["server_processes"] = static_cast<double>(u.processes);
    r.metrics["server_pss_mib"] = static_cast<double>(u.pss_kb) / 1024;
    r.metrics["server_rss_mib"] = static_cast<double>(u.rss_kb) / 1024;
    r.metrics["pss_kib_per_session"] = (static_cast<double>(u.pss_kb) - static_cast<double>(base.pss_kb)) / static_cast<double>(n);
    r.metrics["rss_kib_per_session"] = (static_cast<double>(u.rss_kb) - static_cast<double>(base.rss_kb)) / static_cast<double>(n);
  }

  // Every session must still answer.
  size_t alive = 0;
  std::string dead;
  for (auto& s : sessions) {
    try {
      s.command("NOOP");
      ++alive;
    } catch (const WorkloadError& e) {
      if (dead.empty()) dead = e.what();
    }
  }
  for (auto& s : sessions) s.conn().close();
  if (!error.empty()) throw WorkloadError(error + " (after " + std::to_string(n) + " sessions)");
  r.check("alive", alive == n, std::to_string(n - alive) + " of " + std::to_string(n) + " sessions dead: " + dead);
}

}  // namespace darius::bench
