// bench/load: "mixed" — for duration_s, `deliverers` LMTP connections deliver corpus
// messages to random users while `imap_clients` IMAP clients, each logged in as its own
// user, loop SELECT / FETCH of a 20-message window (FLAGS ENVELOPE RFC822.SIZE) / STORE
// +FLAGS \Seen / SEARCH SUBJECT / NOOP (the IDLE-ish poll of a client waiting for mail), with
// think_ms between commands. p50/p99 latency per command and per delivery.
//
// Correctness: every command must succeed, every delivery must be accepted, and at the end
// the users' INBOXes (STATUS MESSAGES before and after) must have grown by exactly the
// number of deliveries. Each delivery gets a unique Message-ID (tag spliced in), so servers
// with duplicate suppression keep them all. The first failure stops every thread (a server
// lacking FETCH fails in a second, not after the full duration). Threads share only atomics
// and a mutex-guarded merge of their latencies.
#include <atomic>
#include <mutex>
#include <random>
#include <thread>

#include "bench/load/imap_client.h"
#include "bench/load/lmtp_client.h"
#include "bench/load/workloads.h"

namespace darius::bench {

namespace {

size_t statusMessages(ImapClient& im, const std::string& mailbox) {
  size_t n = 0;
  bool seen = false;
  im.command("STATUS " + imapQuote(mailbox) + " (MESSAGES)", [&](ImapResponse& r) {
    size_t p = r.text.find("MESSAGES ");
    if (r.text.rfind("* STATUS", 0) == 0 && p != std::string::npos) {
      n = std::strtoul(r.text.c_str() + p + 9, nullptr, 10);
      seen = true;
    }
  });
  if (!seen) throw WorkloadError("STATUS without MESSAGES");
  return n;
}

}  // namespace

void runMixed(const Options& o, const Corpus& c, Result& r) {
  int span = o.users - o.first_user + 1;
  if (span < 1) throw HarnessError("no users for the mixed load");
  std::vector<size_t> before(static_cast<size_t>(span));
  for (int u = 0; u < span; ++u) {
    ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
    im.login(o.user(o.first_user + u), o.password);
    before[static_cast<size_t>(u)] = statusMessages(im, "INBOX");
    im.logout();
  }

  std::mutex mu;
  std::map<std::string, Latencies> lat;
  std::string error;
  std::atomic<size_t> delivered{0}, commands{0};
  std::atomic<bool> failed{false};  // one failure ends the run for every thread
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.duration_s));
  auto fail = [&](const std::string& e) {
    std::lock_guard g(mu);
    if (error.empty()) error = e;
    failed = true;
  };
  auto running = [&] { return !failed && Clock::now() < deadline; };

  auto deliverer = [&](int id) {
    std::mt19937_64 rng(1000 + static_cast<uint64_t>(id));
    Latencies mine;
    try {
      LmtpClient cl = LmtpClient::connect(o.host, o.lmtp_port, o.timeout_s);
      for (size_t k = 0; running(); ++k) {
        int user = o.first_user + static_cast<int>(rng() % static_cast<uint64_t>(span));
        std::string_view m = c.message(rng() % c.size());
        std::string tag = o.tag + "mx" + std::to_string(id) + "." + std::to_string(k);
        auto t0 = Clock::now();
        auto out = cl.deliver(m, {o.rcpt(user)}, tag);
        mine.add(secondsSince(t0));
        if (out.accepted != 1) throw WorkloadError("delivery refused: " + out.failure);
        ++delivered;
      }
      cl.quit();
    } catch (const WorkloadError& e) {
      fail("deliverer " + std::to_string(id) + ": " + e.what());
    }
    std::lock_guard g(mu);
    lat["LMTP deliver"].merge(mine);
  };

  auto client = [&](int id) {
    std::mt19937_64 rng(2000 + static_cast<uint64_t>(id));
    std::map<std::string, Latencies> mine;
    auto think = [&] {
      if (o.think_ms > 0) std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(o.think_ms * 1000)));
    };
    std::vector<std::string> words;
    for (auto& [w, p] : c.planted()) words.push_back(w);
    try {
      ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
      im.login(o.user(o.first_user + id % span), o.password);
      while (running()) {
        auto timed = [&](const char* name, auto&& fn) {
          auto t0 = Clock::now();
          fn();
          mine[name].add(secondsSince(t0));
          ++commands;
          think();
        };
        uint32_t exists = 0;
        timed("SELECT", [&] { exists = im.select("INBOX").exists; });
        if (exists > 0) {
          uint32_t a = 1 + static_cast<uint32_t>(rng() % exists);
          uint32_t b = std::min(exists, a + 19);
          size_t got = 0;
          timed("FETCH", [&] {
            im.command("FETCH " + std::to_string(a) + ":" + std::to_string(b) + " (FLAGS ENVELOPE RFC822.SIZE)",
                       [&](ImapResponse& resp) {
                         FetchItems f;
                         if (parseFetch(resp, f) && f.find("ENVELOPE")) ++got;
                       });
          });
          if (got < b - a + 1) throw WorkloadError("FETCH " + std::to_string(a) + ":" + std::to_string(b) + " gave " + std::to_string(got));
          uint32_t s = 1 + static_cast<uint32_t>(rng() % exists);
          timed("STORE", [&] { im.command("STORE " + std::to_string(s) + " +FLAGS (\\Seen)"); });
          timed("SEARCH", [&] { im.search("SUBJECT " + words[rng() % words.size()]); });
        }
        timed("NOOP", [&] { im.command("NOOP"); });
      }
      im.logout();
    } catch (const WorkloadError& e) {
      fail("imap client " + std::to_string(id) + ": " + e.what());
    }
    std::lock_guard g(mu);
    for (auto& [k, v] : mine) lat[k].merge(v);
  };

  auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int i = 0; i < o.deliverers; ++i) ts.emplace_back(deliverer, i);
  for (int i = 0; i < o.imap_clients; ++i) ts.emplace_back(client, i);
  for (auto& t : ts) t.join();
  double s = secondsSince(t0);
  r.latency = lat;
  r.metrics["deliveries_per_s"] = static_cast<double>(delivered) / s;
  r.metrics["imap_commands_per_s"] = static_cast<double>(commands) / s;
  for (auto& [k, l] : lat) {
    r.metrics[k + " p50_ms"] = l.quantile(0.5) * 1e3;
    r.metrics[k + " p99_ms"] = l.quantile(0.99) * 1e3;
  }
  if (!error.empty()) throw WorkloadError(error);

  size_t grown = 0;
  for (int u = 0; u < span; ++u) {
    ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
    im.login(o.user(o.first_user + u), o.password);
    grown += statusMessages(im, "INBOX") - before[static_cast<size_t>(u)];
    im.logout();
  }
  r.check("delivered_count", grown == delivered,
          "INBOXes grew by " + std::to_string(grown) + ", deliveries " + std::to_string(delivered.load()));
}

}  // namespace darius::bench
