// bench/load: LMTP delivery workloads — "lmtp" (corpus messages spread over users on C
// connections, one or several recipients each) and "populate" (corpus[0..N) into one
// user's INBOX for the IMAP and POP3 workloads, by LMTP, or by IMAP APPEND when the server
// cannot deliver yet). Threads share only an atomic work counter and a mutex-guarded
// Result merge.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "bench/load/imap_client.h"
#include "bench/load/lmtp_client.h"
#include "bench/load/workloads.h"

namespace darius::bench {

namespace {

struct Tally {
  std::mutex mu;
  size_t accepted = 0, refused = 0, messages = 0;
  uint64_t bytes = 0;
  std::string first_error;
  Latencies lat;
};

// Delivers messages [0, count) of the workload on `conns` connections. Message k is corpus
// message (offset + k) % corpus size; recipients come from `pick`.
template <typename Pick>
void deliverAll(const Options& o, const Corpus& c, size_t count, int conns, Pick pick,
                const std::string& tag_prefix, Tally& t) {
  std::atomic<size_t> next{0};
  auto worker = [&](int id) {
    Latencies lat;
    size_t acc = 0, ref = 0, msgs = 0;
    uint64_t bytes = 0;
    std::string err;
    try {
      LmtpClient cl = LmtpClient::connect(o.host, o.lmtp_port, o.timeout_s);
      for (size_t k; (k = next.fetch_add(1)) < count;) {
        std::string_view m = c.message((o.offset + k) % c.size());
        auto rcpts = pick(k);
        std::string tag = tag_prefix.empty() ? "" : tag_prefix + std::to_string(k);
        auto t0 = Clock::now();
        auto out = cl.deliver(m, rcpts, tag);
        lat.add(secondsSince(t0));
        acc += out.accepted;
        ref += rcpts.size() - out.accepted;
        if (!out.failure.empty() && err.empty()) err = out.failure;
        ++msgs;
        bytes += m.size();
        if (!err.empty()) break;  // a refusing server: stop early, report the reason
      }
      cl.quit();
    } catch (const WorkloadError& e) {
      err = std::string("connection ") + std::to_string(id) + ": " + e.what();
    }
    std::lock_guard g(t.mu);
    t.accepted += acc;
    t.refused += ref;
    t.messages += msgs;
    t.bytes += bytes;
    t.lat.merge(lat);
    if (t.first_error.empty() && !err.empty()) t.first_error = err;
  };
  std::vector<std::thread> ts;
  for (int i = 0; i < conns; ++i) ts.emplace_back(worker, i);
  for (auto& th : ts) th.join();
}

}  // namespace

void runLmtp(const Options& o, const Corpus& c, Result& r) {
  int span = o.users - o.first_user + 1;
  if (span < o.rcpts || o.rcpts < 1) throw HarnessError("not enough users for --rcpts");
  auto pick = [&](size_t k) {
    std::vector<std::string> v;
    for (int j = 0; j < o.rcpts; ++j) {
      v.push_back(o.rcpt(o.first_user + static_cast<int>((k * static_cast<size_t>(o.rcpts) + static_cast<size_t>(j)) % static_cast<size_t>(span))));
    }
    return v;
  };
  Tally t;
  auto t0 = Clock::now();
  deliverAll(o, c, o.count, o.conns, pick, o.tag.empty() ? "" : o.tag + "-", t);
  double s = secondsSince(t0);
  r.latency["deliver"] = t.lat;
  r.metrics["messages"] = static_cast<double>(t.messages);
  r.metrics["msgs_per_s"] = static_cast<double>(t.messages) / s;
  r.metrics["rcpts_per_s"] = static_cast<double>(t.accepted) / s;
  r.metrics["mib_per_s"] = static_cast<double>(t.bytes) / s / (1 << 20);
  if (!t.first_error.empty()) throw WorkloadError(t.first_error);
  size_t want = o.count * static_cast<size_t>(o.rcpts);
  r.check("recipients_accepted", t.accepted == want,
          "expected " + std::to_string(want) + " got " + std::to_string(t.accepted));
}

void runPopulate(const Options& o, const Corpus& c, Result& r) {
  size_t n = o.mailbox_msgs;
  if (n > c.size() || n == 0) throw HarnessError("corpus smaller than --mailbox-msgs");
  auto to = [&](size_t) { return std::vector<std::string>{o.mailbox_user + "@" + o.domain}; };
  std::string via = "lmtp";
  auto t0 = Clock::now();
  // The first message alone: it creates the mailbox on servers that create it on first
  // delivery (Cyrus's autocreate_post), which concurrent first deliveries would race on.
  Options first = o;
  first.offset = 0;
  Tally t1;
  deliverAll(first, c, 1, 1, to, "", t1);
  if (t1.accepted == 1) {
    Options rest = o;
    rest.offset = 1;
    Tally t;
    deliverAll(rest, c, n - 1, o.conns, to, "", t);
    if (!t.first_error.empty() || t.accepted != n - 1) {
      throw WorkloadError("LMTP: " + (t.first_error.empty() ? "accepted " + std::to_string(t.accepted + 1) +
                                                                  " of " + std::to_string(n)
                                                            : t.first_error));
    }
  } else {
    // No delivery at all (yet): IMAP APPEND in corpus order, so the IMAP rows can still run.
    std::string lmtp_error = t1.first_error.empty() ? "not accepted" : t1.first_error;
    via = "append";
    t0 = Clock::now();
    try {
      ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
      im.login(o.mailbox_user, o.password);
      SelectInfo before = im.select("INBOX");
      if (before.exists != 0) throw WorkloadError("INBOX not empty before APPEND");
      for (size_t i = 0; i < n; ++i) im.append("INBOX", c.message(i));
      im.logout();
    } catch (const WorkloadError& e) {
      throw WorkloadError("LMTP: " + lmtp_error + "; IMAP APPEND: " + e.what());
    }
  }
  double s = secondsSince(t0);
  r.metrics["msgs_per_s"] = static_cast<double>(n) / s;
  r.checks["via"] = via;
  ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
  im.login(o.mailbox_user, o.password);
  SelectInfo si = im.select("INBOX");
  im.logout();
  r.check("exists", si.exists == n, "expected " + std::to_string(n) + " got " + std::to_string(si.exists));
}

}  // namespace darius::bench
