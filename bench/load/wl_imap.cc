// bench/load: IMAP workloads on the populated mailbox (Options::mailbox_user, holding
// corpus[0..mailbox_msgs)) and POP3 RETR. Single-threaded each: they measure one client's
// command against a big mailbox, as a mail client on first sync does. Every timed command is
// checked: counts of FETCH responses, sizes, SEARCH hits against the manifest.
#include <algorithm>
#include <charconv>

#include "bench/load/imap_client.h"
#include "bench/load/lmtp_client.h"
#include "bench/load/workloads.h"

namespace darius::bench {

namespace {

ImapClient openImapClient(const Options& o) {
  ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
  im.login(o.mailbox_user, o.password);
  return im;
}

uint64_t atomNum(const ImapValue* v) {
  if (!v || v->kind != ImapValue::Kind::Atom) return 0;
  uint64_t n = 0;
  std::from_chars(v->s.data(), v->s.data() + v->s.size(), n);
  return n;
}

}  // namespace

void runImapLogin(const Options& o, Result& r) {
  Latencies lat;
  auto t0 = Clock::now();
  for (size_t i = 0; i < o.count; ++i) {
    auto t1 = Clock::now();
    ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
    im.login(o.user(1 + static_cast<int>(i % static_cast<size_t>(o.users))), o.password);
    im.logout();
    lat.add(secondsSince(t1));
  }
  r.metrics["logins_per_s"] = static_cast<double>(o.count) / secondsSince(t0);
  r.latency["connect+login+logout"] = lat;
}

void runImapSelect(const Options& o, Result& r) {
  Latencies lat;
  auto t0 = Clock::now();
  for (size_t i = 0; i < o.count; ++i) {
    auto t1 = Clock::now();
    ImapClient im = openImapClient(o);
    SelectInfo si = im.select("INBOX");
    im.logout();
    lat.add(secondsSince(t1));
    if (si.exists != o.mailbox_msgs) {
      r.check("exists", false,
              "expected " + countText(o.mailbox_msgs) + " got " + countText(si.exists));
    }
  }
  r.checks["exists"] = "ok";
  r.metrics["per_s"] = static_cast<double>(o.count) / secondsSince(t0);
  r.latency["login+select"] = lat;
}

void runFetchMeta(const Options& o, const Corpus& c, Result& r) {
  ImapClient im = openImapClient(o);
  SelectInfo si = im.select("INBOX");
  r.check("exists", si.exists == o.mailbox_msgs,
          "expected " + countText(o.mailbox_msgs) + " got " + countText(si.exists));
  size_t n = 0, bad = 0;
  uint64_t size_sum = 0, last_uid = 0;
  std::string bad_detail;
  auto t0 = Clock::now();
  im.command("UID FETCH 1:* (FLAGS INTERNALDATE RFC822.SIZE ENVELOPE BODYSTRUCTURE)", [&](ImapResponse& resp) {
    FetchItems f;
    if (!parseFetch(resp, f)) return;
    ++n;
    uint64_t uid = atomNum(f.find("UID"));
    uint64_t size = atomNum(f.find("RFC822.SIZE"));
    const ImapValue* env = f.find("ENVELOPE");
    const ImapValue* bs = f.find("BODYSTRUCTURE");
    bool good = uid > last_uid && size > 0 && f.find("FLAGS") && f.find("INTERNALDATE") && env &&
                env->kind == ImapValue::Kind::List && env->list.size() == 10 && bs &&
                bs->kind == ImapValue::Kind::List && !bs->list.empty();
    if (!good && bad++ == 0) bad_detail = resp.text.substr(0, 300);
    last_uid = uid;
    size_sum += size;
  });
  double s = secondsSince(t0);
  im.logout();
  r.metrics["msgs_per_s"] = static_cast<double>(n) / s;
  r.metrics["seconds"] = s;
  r.check("responses", n == si.exists, "expected " + countText(si.exists) + " got " + countText(n));
  r.check("items", bad == 0, countText(bad) + " malformed, first: " + bad_detail);
  // Servers add trace headers at delivery (Return-Path, Received, Delivered-To), so the
  // stored size is at least the corpus size and not more than 2 KiB per message above it.
  uint64_t corpus_bytes = 0;
  for (size_t i = 0; i < o.mailbox_msgs; ++i) corpus_bytes += c.message(i).size();
  r.check("sizes", size_sum >= corpus_bytes && size_sum <= corpus_bytes + 2048 * n,
          "RFC822.SIZE sum " + std::to_string(size_sum) + " vs corpus " + std::to_string(corpus_bytes));
}

void runFetchBody(const Options& o, Result& r) {
  ImapClient im = openImapClient(o);
  SelectInfo si = im.select("INBOX");
  r.check("exists", si.exists == o.mailbox_msgs,
          "expected " + countText(o.mailbox_msgs) + " got " + countText(si.exists));
  std::vector<uint64_t> sizes(si.exists + 1, 0);
  im.command("FETCH 1:* (RFC822.SIZE)", [&](ImapResponse& resp) {
    FetchItems f;
    if (parseFetch(resp, f) && f.seq < sizes.size()) sizes[f.seq] = atomNum(f.find("RFC822.SIZE"));
  });
  size_t n = 0, mismatch = 0;
  uint64_t bytes = 0;
  std::string detail;
  auto t0 = Clock::now();
  im.command("FETCH 1:* BODY.PEEK[]", [&](ImapResponse& resp) {
    FetchItems f;
    if (!parseFetch(resp, f)) return;
    ++n;
    const ImapValue* b = f.find("BODY[]");
    uint64_t got = b ? (b->literal_size ? b->literal_size : b->s.size()) : 0;
    bytes += got;
    if ((f.seq >= sizes.size() || got != sizes[f.seq]) && mismatch++ == 0) {
      detail = "message " + countText(f.seq) + ": BODY[] " + std::to_string(got) +
               " bytes, RFC822.SIZE " + std::to_string(f.seq < sizes.size() ? sizes[f.seq] : 0);
    }
  }, LiteralMode::Skip);
  double s = secondsSince(t0);
  im.logout();
  r.metrics["msgs_per_s"] = static_cast<double>(n) / s;
  r.metrics["mib_per_s"] = static_cast<double>(bytes) / s / (1 << 20);
  r.check("responses", n == si.exists, "expected " + countText(si.exists) + " got " + countText(n));
  r.check("bytes", mismatch == 0, countText(mismatch) + " mismatches, first: " + detail);
}

void runSearch(const Options& o, const Corpus& c, Result& r) {
  ImapClient im = openImapClient(o);
  SelectInfo si = im.select("INBOX");
  r.check("exists", si.exists == o.mailbox_msgs,
          "expected " + countText(o.mailbox_msgs) + " got " + countText(si.exists));
  Latencies text, subject;
  size_t searches = 0;
  std::string wrong;  // every mismatch, reported after the timings are recorded
  auto compare = [&](const std::string& name, size_t got, size_t want) {
    r.checks[name] = got == want ? "ok" : "expected " + countText(want) + " got " + countText(got);
    if (got != want)
      wrong += (wrong.empty() ? "" : ", ") + name + " expected " + countText(want) + " got " +
               countText(got);
  };
  auto t0 = Clock::now();
  for (auto& [word, where] : c.planted()) {
    (void)where;
    auto t1 = Clock::now();
    size_t got = im.search("TEXT " + word).size();
    text.add(secondsSince(t1));
    compare("text_" + word, got, c.expectText(word, 0, o.mailbox_msgs));
    t1 = Clock::now();
    got = im.search("SUBJECT " + word).size();
    subject.add(secondsSince(t1));
    compare("subject_" + word, got, c.expectSubject(word, 0, o.mailbox_msgs));
    searches += 2;
  }
  double s = secondsSince(t0);
  im.logout();
  r.metrics["searches_per_s"] = static_cast<double>(searches) / s;
  r.metrics["text_ms"] = text.quantile(0.5) * 1e3;
  r.metrics["subject_ms"] = subject.quantile(0.5) * 1e3;
  r.latency["SEARCH TEXT"] = text;
  r.latency["SEARCH SUBJECT"] = subject;
  if (!wrong.empty()) {
    r.wrong_result = true;
    throw WorkloadError("wrong SEARCH hits: " + wrong);
  }
}

void runStore(const Options& o, Result& r) {
  ImapClient im = openImapClient(o);
  SelectInfo si = im.select("INBOX");
  size_t n = 0;
  auto t0 = Clock::now();
  im.command("STORE 1:* +FLAGS (\\Flagged)", [&](ImapResponse& resp) {
    FetchItems f;
    if (parseFetch(resp, f)) ++n;
  });
  double s = secondsSince(t0);
  size_t flagged = im.search("FLAGGED").size();
  im.logout();
  r.metrics["msgs_per_s"] = static_cast<double>(si.exists) / s;
  r.metrics["seconds"] = s;
  r.check("fetch_responses", n == si.exists,
          "expected " + countText(si.exists) + " got " + countText(n));
  r.check("flagged", flagged == si.exists,
          "SEARCH FLAGGED gave " + countText(flagged) + " of " + countText(si.exists));
}

void runAppend(const Options& o, const Corpus& c, Result& r) {
  ImapClient im = openImapClient(o);
  SelectInfo before = im.select("INBOX");
  bool uidplus = im.capabilities().count("UIDPLUS") > 0;
  size_t with_uid = 0;
  Latencies lat;
  auto t0 = Clock::now();
  for (size_t k = 0; k < o.count; ++k) {
    auto t1 = Clock::now();
    std::string ok = im.append("INBOX", c.message((o.offset + k) % c.size()));
    lat.add(secondsSince(t1));
    if (ok.find("[APPENDUID ") != std::string::npos) ++with_uid;
  }
  double s = secondsSince(t0);
  SelectInfo after = im.select("INBOX");
  im.logout();
  r.metrics["msgs_per_s"] = static_cast<double>(o.count) / s;
  r.latency["APPEND"] = lat;
  r.check("exists", after.exists == before.exists + o.count,
          "expected " + countText(before.exists + o.count) + " got " + countText(after.exists));
  if (uidplus)
    r.check("appenduid", with_uid == o.count,
            countText(with_uid) + " of " + countText(o.count) + " had APPENDUID");
}

void runExpunge(const Options& o, Result& r) {
  ImapClient im = openImapClient(o);
  SelectInfo si = im.select("INBOX");
  // Every 10th message: a user cleaning up, not a mailbox wipe.
  std::string set;
  size_t want = 0;
  for (size_t i = 10; i <= si.exists; i += 10) {
    set += (set.empty() ? "" : ",") + countText(i);
    ++want;
  }
  if (want == 0) throw WorkloadError("mailbox has fewer than 10 messages");
  size_t expunged = 0;
  auto t0 = Clock::now();
  im.command("STORE " + set + " +FLAGS.SILENT (\\Deleted)");
  im.command("EXPUNGE", [&](ImapResponse& resp) {
    if (resp.text.size() > 9 && resp.text.compare(resp.text.size() - 8, 8, " EXPUNGE") == 0) ++expunged;
  });
  double s = secondsSince(t0);
  SelectInfo after = im.select("INBOX");
  im.logout();
  r.metrics["expunged_per_s"] = static_cast<double>(want) / s;
  r.metrics["seconds"] = s;
  r.check("expunge_responses", expunged == want,
          "expected " + countText(want) + " got " + countText(expunged));
  r.check("exists", after.exists == si.exists - want,
          "expected " + countText(si.exists - want) + " got " + countText(after.exists));
}

void runPop3(const Options& o, Result& r) {
  Pop3Client p = Pop3Client::connect(o.host, o.pop3_port, o.timeout_s);
  p.login(o.mailbox_user, o.password);
  auto [count, octets] = p.stat();
  r.check("stat", count == o.mailbox_msgs,
          "expected " + countText(o.mailbox_msgs) + " got " + countText(count));
  std::vector<uint64_t> sizes = p.list();
  r.check("list", sizes.size() == count,
          "LIST gave " + countText(sizes.size()) + " of " + countText(count));
  size_t n = std::min(o.count, count);
  uint64_t bytes = 0;
  size_t mismatch = 0;
  std::string detail;
  auto t0 = Clock::now();
  for (size_t i = 1; i <= n; ++i) {
    uint64_t got = p.retr(i);
    bytes += got;
    if (got != sizes[i - 1] && mismatch++ == 0) {
      detail = "message " + countText(i) + ": " + std::to_string(got) + " bytes, LIST said " +
               std::to_string(sizes[i - 1]);
    }
  }
  double s = secondsSince(t0);
  p.quit();
  r.metrics["msgs_per_s"] = static_cast<double>(n) / s;
  r.metrics["mib_per_s"] = static_cast<double>(bytes) / s / (1 << 20);
  r.check("bytes", mismatch == 0, countText(mismatch) + " mismatches, first: " + detail);
}

}  // namespace darius::bench
