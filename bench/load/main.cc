// bench/load: darius_load — the benchmark's load client. One invocation runs one workload
// against one server and prints one JSON object (see common.h Result) on stdout:
//
//   darius_load WORKLOAD [--imap-port P] [--lmtp-port P] [--pop3-port P] [--corpus DIR]
//               [--count N] [--offset N] [--conns C] [--rcpts R] [--users N]
//               [--first-user N] [--mailbox-user U] [--mailbox-msgs N] [--server-pid PID]
//               [--duration S] [--deliverers N] [--imap-clients N] [--think-ms MS]
//               [--mem-budget-mb M] [--min-avail-mb M] [--timeout S] [--dir D] [--tag T]
//               [--admin-user U] [--create-prefix P] [--list-prefix P] [--shared N] [--visible N]
//               [--other-user U] [--quota-root R] [--quota-kib K] [--quota-msgs M]
//               [--warm-only 0|1] [--exec CMD] [--via imap|exec|none] [--reps N] [--baseline-s S]
//               [--body-word W] [--header-word W]
//   darius_load selftest
//
// Workloads: lmtp populate imap_login imap_select imap_fetch_meta imap_fetch_body
// imap_search imap_store imap_append imap_expunge pop3_retr imap_idle_sessions mixed physical
// shared_setup imap_list acl_quota expire undelete imap_sort_search.
//
// Exit status: 0 when the workload ran, whether the server coped or not ("ok": false with
// the reason); 2 when the harness is broken (bad usage, unreadable corpus). bench/runner.py
// relies on this split for `--check`. The client's own CPU time is in client_cpu_s, so a
// reader can see that the client is not the bottleneck; with --server-pid the server's CPU
// time over the workload is in server_cpu_s (split into server_user_s and server_sys_s).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>

#include "bench/load/procmem.h"
#include "bench/load/workloads.h"

using namespace darius::bench;

namespace {

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "darius_load: %s\nusage: darius_load WORKLOAD [options] (see bench/load/main.cc)\n",
               why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) usage(a + " needs a value");
    std::string v = argv[++i];
    auto n = [&] {
      char* end = nullptr;
      unsigned long long x = std::strtoull(v.c_str(), &end, 10);
      if (!end || *end) usage(a + ": not a number: " + v);
      return static_cast<size_t>(x);
    };
    auto d = [&] {
      char* end = nullptr;
      double x = std::strtod(v.c_str(), &end);
      if (!end || *end) usage(a + ": not a number: " + v);
      return x;
    };
    if (a == "--host") o.host = v;
    else if (a == "--imap-port") o.imap_port = static_cast<int>(n());
    else if (a == "--lmtp-port") o.lmtp_port = static_cast<int>(n());
    else if (a == "--pop3-port") o.pop3_port = static_cast<int>(n());
    else if (a == "--corpus") o.corpus_dir = v;
    else if (a == "--count") o.count = n();
    else if (a == "--offset") o.offset = n();
    else if (a == "--conns") o.conns = static_cast<int>(n());
    else if (a == "--rcpts") o.rcpts = static_cast<int>(n());
    else if (a == "--users") o.users = static_cast<int>(n());
    else if (a == "--first-user") o.first_user = static_cast<int>(n());
    else if (a == "--mailbox-user") o.mailbox_user = v;
    else if (a == "--mailbox-msgs") o.mailbox_msgs = n();
    else if (a == "--server-pid") o.server_pid = static_cast<int>(n());
    else if (a == "--duration") o.duration_s = d();
    else if (a == "--deliverers") o.deliverers = static_cast<int>(n());
    else if (a == "--imap-clients") o.imap_clients = static_cast<int>(n());
    else if (a == "--think-ms") o.think_ms = d();
    else if (a == "--mem-budget-mb") o.mem_budget_mb = n();
    else if (a == "--min-avail-mb") o.min_avail_mb = n();
    else if (a == "--timeout") o.timeout_s = d();
    else if (a == "--dir") o.dir = v;
    else if (a == "--tag") o.tag = v;
    else if (a == "--password") o.password = v;
    else if (a == "--domain") o.domain = v;
    else if (a == "--admin-user") o.admin_user = v;
    else if (a == "--create-prefix") o.create_prefix = v;
    else if (a == "--list-prefix") o.list_prefix = v;
    else if (a == "--shared") o.shared = n();
    else if (a == "--visible") o.visible = n();
    else if (a == "--other-user") o.other_user = v;
    else if (a == "--quota-root") o.quota_root = v;
    else if (a == "--quota-kib") o.quota_kib = n();
    else if (a == "--quota-msgs") o.quota_msgs = n();
    else if (a == "--warm-only") o.warm_only = n() != 0;
    else if (a == "--exec") o.exec = v;
    else if (a == "--via") o.via = v;
    else if (a == "--reps") o.reps = n();
    else if (a == "--baseline-s") o.baseline_s = d();
    else if (a == "--body-word") o.body_word = v;
    else if (a == "--header-word") o.header_word = v;
    else usage("unknown option " + a);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) usage("no workload");
  std::signal(SIGPIPE, SIG_IGN);  // a server that closes on us is a WorkloadError, not a kill
  std::string w = argv[1];
  if (w == "selftest") return runSelfTest() == 0 ? 0 : 2;
  Options o = parse(argc, argv);

  std::optional<Corpus> corpus;
  auto needCorpus = [&]() -> const Corpus& {
    if (!corpus) {
      if (o.corpus_dir.empty()) usage(w + " needs --corpus");
      corpus.emplace(Corpus::open(o.corpus_dir));
    }
    return *corpus;
  };
  std::map<std::string, std::function<void(Result&)>> table = {
      {"lmtp", [&](Result& r) { runLmtp(o, needCorpus(), r); }},
      {"populate", [&](Result& r) { runPopulate(o, needCorpus(), r); }},
      {"imap_login", [&](Result& r) { runImapLogin(o, r); }},
      {"imap_select", [&](Result& r) { runImapSelect(o, r); }},
      {"imap_fetch_meta", [&](Result& r) { runFetchMeta(o, needCorpus(), r); }},
      {"imap_fetch_body", [&](Result& r) { runFetchBody(o, r); }},
      {"imap_search", [&](Result& r) { runSearch(o, needCorpus(), r); }},
      {"imap_store", [&](Result& r) { runStore(o, r); }},
      {"imap_append", [&](Result& r) { runAppend(o, needCorpus(), r); }},
      {"imap_expunge", [&](Result& r) { runExpunge(o, r); }},
      {"pop3_retr", [&](Result& r) { runPop3(o, r); }},
      {"imap_idle_sessions", [&](Result& r) { runIdle(o, r); }},
      {"mixed", [&](Result& r) { runMixed(o, needCorpus(), r); }},
      {"physical", [&](Result& r) { runPhysical(o, r); }},
      {"shared_setup", [&](Result& r) { runSharedSetup(o, r); }},
      {"imap_list", [&](Result& r) { runImapList(o, r); }},
      {"acl_quota", [&](Result& r) { runAclQuota(o, r); }},
      {"expire", [&](Result& r) { runExpire(o, r); }},
      {"undelete", [&](Result& r) { runUndelete(o, r); }},
      {"imap_sort_search", [&](Result& r) { runSortSearch(o, needCorpus(), r); }},
  };
  auto it = table.find(w);
  if (it == table.end()) usage("unknown workload " + w);

  Result r;
  r.workload = w;
  static const char* kNeedCorpus[] = {"lmtp", "populate", "imap_fetch_meta", "imap_search",
                                      "imap_append", "mixed", "imap_sort_search"};
  try {
    for (const char* n : kNeedCorpus) {
      if (w == n) needCorpus();  // a harness error, reported before any timing
    }
  } catch (const HarnessError& e) {
    std::fprintf(stderr, "darius_load: %s\n", e.what());
    return 2;
  }
  double cpu0 = processCpuSeconds();
  TreeUsage srv0;
  if (o.server_pid > 0) srv0 = treeUsage(o.server_pid, false);
  auto t0 = Clock::now();
  try {
    it->second(r);
  } catch (const WorkloadError& e) {
    r.ok = false;
    r.error = e.what();
  } catch (const HarnessError& e) {
    std::fprintf(stderr, "darius_load: %s\n", e.what());
    return 2;
  }
  r.wall_s = secondsSince(t0);
  r.client_cpu_s = processCpuSeconds() - cpu0;
  if (o.server_pid > 0) {
    TreeUsage srv1 = treeUsage(o.server_pid, false);
    r.server_cpu_s = srv1.cpu_s - srv0.cpu_s;
    r.server_user_s = srv1.user_s - srv0.user_s;
    r.server_sys_s = srv1.sys_s - srv0.sys_s;
  }
  std::printf("%s\n", r.toJson().c_str());
  return 0;
}
