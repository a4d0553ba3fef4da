// bench/load: "imap_sort_search" — the search rows (issue 19): SEARCH TEXT and SEARCH BODY of
// a rare body word, SEARCH TEXT of a rare header (Subject) word, SORT (DATE), SORT (SUBJECT)
// (RFC 5256 §3) and THREAD REFERENCES (RFC 5256 §4) on Options::mailbox_user's INBOX, which
// holds corpus[0..mailbox_msgs) in any order. Each command runs once untimed-apart ("first")
// and then Options::count times; median and p95 of those are reported.
//
// Checks: every SEARCH hit count against the corpus manifest; SORT (DATE), mapped to corpus
// indexes through each message's Message-ID ("<i.…>", gen_corpus.py), must be 0..n-1 in
// order (the generator's dates strictly increase with i); SORT (SUBJECT) must be a
// permutation in which the messages with the same plain-ASCII base subject form one run and
// those runs ascend (i;ascii-casemap; RFC 2047-encoded subjects are only counted, as they
// decode to non-ASCII and can never equal an ASCII one); THREAD must name every message
// exactly once, and its number of threads must be the same in every repetition (the runner
// compares it across servers). A server without SORT or THREAD=REFERENCES in its CAPABILITY
// gets "n/a" for those rows (Result::not_applicable), never a failure.
//
// Single-threaded: one client, as a mail client sorting a folder on first view.
#include <algorithm>
#include <charconv>
#include <map>

#include "bench/load/imap_client.h"
#include "bench/load/workloads.h"

namespace darius::bench {

namespace {

// Every number of a "* SORT" / "* SEARCH" line (the prefix of `keyword` already checked).
std::vector<uint32_t> numbersAfter(const std::string& text, size_t from) {
  std::vector<uint32_t> out;
  const char* p = text.c_str() + from;
  const char* end = text.c_str() + text.size();
  while (p < end) {
    while (p < end && *p == ' ') ++p;
    if (p >= end || *p == '(') break;
    uint32_t v = 0;
    auto [q, ec] = std::from_chars(p, end, v);
    if (ec != std::errc()) throw WorkloadError("bad response: " + text.substr(0, 200));
    out.push_back(v);
    p = q;
  }
  return out;
}

bool startsWithUpper(const std::string& text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

// SORT: the numbers of the "* SORT" response.
std::vector<uint32_t> sortCommand(ImapClient& im, const std::string& cmd) {
  std::vector<uint32_t> out;
  bool seen = false;
  im.command(cmd, [&](ImapResponse& r) {
    if (!startsWithUpper(r.text, "* SORT")) return;
    seen = true;
    auto v = numbersAfter(r.text, 6);
    out.insert(out.end(), v.begin(), v.end());
  });
  if (!seen) throw WorkloadError(cmd + ": no SORT response");
  return out;
}

struct ThreadShape {
  std::vector<uint32_t> members;  // every number, in response order
  size_t threads = 0;             // top-level parenthesised groups
};

// THREAD: "* THREAD (1)(2 3)((4)(5))" — numbers and top-level groups (RFC 5256 §4).
ThreadShape threadCommand(ImapClient& im, const std::string& cmd) {
  ThreadShape t;
  bool seen = false;
  im.command(cmd, [&](ImapResponse& r) {
    if (!startsWithUpper(r.text, "* THREAD")) return;
    seen = true;
    int depth = 0;
    const char* p = r.text.c_str() + 8;
    const char* end = r.text.c_str() + r.text.size();
    while (p < end) {
      if (*p == '(') {
        if (depth++ == 0) ++t.threads;
        ++p;
      } else if (*p == ')') {
        if (--depth < 0) throw WorkloadError("unbalanced THREAD response");
        ++p;
      } else if (*p >= '0' && *p <= '9') {
        uint32_t v = 0;
        auto [q, ec] = std::from_chars(p, end, v);
        if (ec != std::errc()) throw WorkloadError("bad THREAD response");
        t.members.push_back(v);
        p = q;
      } else {
        ++p;
      }
    }
    if (depth != 0) throw WorkloadError("unbalanced THREAD response");
  });
  if (!seen) throw WorkloadError(cmd + ": no THREAD response");
  return t;
}

// The corpus index of a message from its Message-ID header "<i.hex@domain>", or SIZE_MAX.
size_t corpusIndexOf(std::string_view header) {
  size_t lt = header.find('<');
  if (lt == std::string_view::npos) return SIZE_MAX;
  size_t i = 0;
  auto [p, ec] = std::from_chars(header.data() + lt + 1, header.data() + header.size(), i);
  if (ec != std::errc() || p >= header.data() + header.size() || *p != '.') return SIZE_MAX;
  return i;
}

// The Subject of corpus message i without one leading "Re: " (the generator adds at most
// one and never a "Fwd" or "[...]"), or "" when it is RFC 2047-encoded.
std::string asciiBaseSubject(const Corpus& c, size_t i) {
  std::string_view m = c.message(i);
  size_t end = m.find("\r\n\r\n");
  std::string_view head = m.substr(0, end);
  size_t s = head.find("\r\nSubject: ");
  if (s == std::string_view::npos) return "";
  s += 11;
  std::string_view v = head.substr(s, head.find("\r\n", s) - s);
  if (v.substr(0, 4) == "Re: ") v.remove_prefix(4);
  if (v.find("=?") != std::string_view::npos) return "";
  std::string out(v);
  for (char& ch : out) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return out;
}

}  // namespace

void runSortSearch(const Options& o, const Corpus& c, Result& r) {
  const size_t n = o.mailbox_msgs;
  if (n == 0 || n > c.size()) throw HarnessError("imap_sort_search: --mailbox-msgs beyond the corpus");
  if (o.body_word.empty() || o.header_word.empty()) throw HarnessError("imap_sort_search needs --body-word and --header-word");
  ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
  im.login(o.mailbox_user, o.password);
  const auto& caps = im.capabilities();
  bool sort = caps.count("SORT") > 0;
  bool thread = caps.count("THREAD=REFERENCES") > 0;
  SelectInfo si = im.select("INBOX");
  r.check("exists", si.exists == n, "expected " + countText(n) + " got " + countText(si.exists));

  std::string wrong;  // every mismatch, reported after the timings are recorded
  auto compare = [&](const std::string& name, bool ok, const std::string& detail) {
    if (!r.checks.count(name) || r.checks[name] == "ok") r.checks[name] = ok ? "ok" : detail;
    if (!ok && wrong.find(name) == std::string::npos) wrong += (wrong.empty() ? "" : "; ") + name + " " + detail;
  };

  // seq -> corpus index, for the SORT checks (one FETCH, untimed).
  std::vector<size_t> corpus_of(n + 1, SIZE_MAX);
  if (sort) {
    im.command("FETCH 1:* (BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])", [&](ImapResponse& resp) {
      FetchItems f;
      if (!parseFetch(resp, f) || f.seq == 0 || f.seq > n) return;
      for (auto& [name, v] : f.items) {
        if (name.rfind("BODY[", 0) == 0) corpus_of[f.seq] = corpusIndexOf(v.s);
      }
    });
  }

  struct Cmd {
    std::string key, command;
    bool available;
    std::string why;
  };
  std::vector<Cmd> cmds = {
      {"search_text", "SEARCH TEXT " + o.body_word, true, ""},
      {"search_body", "SEARCH BODY " + o.body_word, true, ""},
      {"header_text", "SEARCH TEXT " + o.header_word, true, ""},
      {"sort_date", "SORT (DATE) UTF-8 ALL", sort, "no SORT capability"},
      {"sort_subject", "SORT (SUBJECT) UTF-8 ALL", sort, "no SORT capability"},
      {"thread_refs", "THREAD REFERENCES UTF-8 ALL", thread, "no THREAD=REFERENCES capability"},
  };
  const auto& body_set = c.planted().count(o.body_word) ? c.planted().at(o.body_word).body : std::set<size_t>{};
  size_t want_body = static_cast<size_t>(std::count_if(body_set.begin(), body_set.end(), [&](size_t i) { return i < n; }));
  std::map<std::string, size_t> want_hits = {{"search_text", c.expectText(o.body_word, 0, n)},
                                             {"search_body", want_body},
                                             {"header_text", c.expectText(o.header_word, 0, n)}};
  std::vector<std::string> subject_of;  // ASCII base subject per corpus index ("" = encoded)
  size_t threads_seen = 0;

  auto checkSortDate = [&](const std::vector<uint32_t>& v) {
    size_t bad = 0;
    for (size_t k = 0; k < v.size(); ++k) {
      if (v[k] == 0 || v[k] > n || corpus_of[v[k]] != k) ++bad;
    }
    compare("sort_date", v.size() == n && bad == 0,
            "expected " + countText(n) + " messages in corpus order, got " + countText(v.size()) +
                " with " + countText(bad) + " out of place");
  };
  auto checkSortSubject = [&](const std::vector<uint32_t>& v) {
    if (subject_of.empty()) {
      subject_of.resize(n);
      for (size_t i = 0; i < n; ++i) subject_of[i] = asciiBaseSubject(c, i);
    }
    std::vector<bool> seen(n + 1, false);
    size_t dup = 0;
    for (uint32_t s : v) {
      if (s == 0 || s > n || seen[s]) ++dup;
      else seen[s] = true;
    }
    // The ASCII base subjects in output order: equal ones adjacent, runs ascending.
    std::string prev;
    std::set<std::string> closed;
    size_t disorder = 0;
    for (uint32_t s : v) {
      if (s == 0 || s > n || corpus_of[s] >= n) continue;
      const std::string& b = subject_of[corpus_of[s]];
      if (b.empty() || b == prev) continue;
      if (!prev.empty()) {
        closed.insert(prev);
        if (b < prev) ++disorder;
      }
      if (closed.count(b)) ++disorder;
      prev = b;
    }
    compare("sort_subject", v.size() == n && dup == 0 && disorder == 0,
            "got " + countText(v.size()) + " of " + countText(n) + " messages, " + countText(dup) +
                " repeated or out of range, " + countText(disorder) +
                " base subjects out of order or split");
  };
  auto checkThread = [&](const ThreadShape& t) {
    std::vector<bool> seen(n + 1, false);
    size_t dup = 0;
    for (uint32_t s : t.members) {
      if (s == 0 || s > n || seen[s]) ++dup;
      else seen[s] = true;
    }
    compare("thread_refs", t.members.size() == n && dup == 0,
            "named " + countText(t.members.size()) + " of " + countText(n) + " messages, " +
                countText(dup) + " repeated or out of range");
    if (threads_seen && t.threads != threads_seen) {
      compare("thread_refs_stable", false,
              countText(t.threads) + " threads after " + countText(threads_seen));
    }
    threads_seen = t.threads;
  };

  std::map<std::string, Latencies> lat;
  std::map<std::string, double> first;
  auto record = [&](const std::string& key, size_t rep, double s) {
    if (rep == 0) first[key] = s;  // the first may load an index or a cache: shown apart
    else lat[key].add(s);
  };
  auto t_all = Clock::now();
  for (size_t rep = 0; rep <= o.count; ++rep) {
    for (const Cmd& cmd : cmds) {
      if (!cmd.available) continue;
      auto t0 = Clock::now();
      if (cmd.command.rfind("SEARCH ", 0) == 0) {
        size_t got = im.search(cmd.command.substr(7)).size();
        double s = secondsSince(t0);
        record(cmd.key, rep, s);
        size_t want = want_hits[cmd.key];
        r.metrics[cmd.key + "_hits"] = static_cast<double>(got);
        compare(cmd.key, got == want,
                "expected " + countText(want) + " hits got " + countText(got));
      } else if (cmd.command.rfind("SORT ", 0) == 0) {
        auto v = sortCommand(im, cmd.command);
        double s = secondsSince(t0);
        record(cmd.key, rep, s);
        if (rep == 0 && cmd.key == "sort_date") checkSortDate(v);
        else if (rep == 0) checkSortSubject(v);
        else
          compare(cmd.key, v.size() == n, "got " + countText(v.size()) + " of " + countText(n));
      } else {
        auto t = threadCommand(im, cmd.command);
        double s = secondsSince(t0);
        record(cmd.key, rep, s);
        checkThread(t);
      }
    }
  }
  double total = secondsSince(t_all);
  im.logout();
  for (const Cmd& cmd : cmds) {
    for (const char* suffix : {"_ms", "_p95_ms", "_first_ms"}) {
      if (!cmd.available) r.not_applicable[cmd.key + suffix] = cmd.why;
    }
    if (!cmd.available) continue;
    r.metrics[cmd.key + "_ms"] = lat[cmd.key].quantile(0.5) * 1e3;
    r.metrics[cmd.key + "_p95_ms"] = lat[cmd.key].quantile(0.95) * 1e3;
    r.metrics[cmd.key + "_first_ms"] = first[cmd.key] * 1e3;
    r.latency[cmd.command] = lat[cmd.key];
  }
  if (thread) r.metrics["thread_count"] = static_cast<double>(threads_seen);
  r.metrics["messages"] = static_cast<double>(n);
  r.metrics["seconds"] = total;
  if (!wrong.empty()) {
    r.wrong_result = true;
    throw WorkloadError("wrong result: " + wrong);
  }
}

}  // namespace darius::bench
