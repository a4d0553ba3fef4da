// bench/load: the multi-user workloads of issue 17 — shared mailboxes and what one user may
// see of them, and ACLs and quotas on the bench users' own mailboxes.
//
//   shared_setup  as --admin-user, CREATE --shared mailboxes "<create-prefix>bench-NNNNNN" and
//                 SETACL each: every (shared/visible)-th to mailbox_user "lr", the others to
//                 --other-user "lr" (and DELETEACL anyone when the server's default ACL for a
//                 new top-level mailbox has an "anyone" entry, as Cyrus's defaultacl does), all
//                 pipelined on one connection; setup time and rate are reported, not ranked.
//   imap_list     as mailbox_user, LIST "" "*" once (cold, reported apart) and then --count
//                 times on the same connection: median and p90. Every reply is checked: the
//                 selectable names under --list-prefix are exactly the visible mailboxes, each
//                 once, INBOX is there, and nothing else selectable is listed (non-selectable
//                 hierarchy or namespace levels, such as Dovecot's "Shared", are counted apart).
//   acl_quota     for each user bench1..bench<users>: as the owner, SETACL INBOX with three
//                 entries for other users ("bench<u+1> lr", "bench<u+2> lrs", "-bench<u+3> w")
//                 and GETACL to check them; with --admin-user, SETQUOTA --quota-root (%u = the
//                 user) to STORAGE --quota-kib and MESSAGE --quota-msgs; then as each user,
//                 GETQUOTAROOT INBOX must show both limits (a server set up without an admin,
//                 Dovecot, gets them from its configuration). With --warm-only 1, only the
//                 same logins (each user twice, the admin once) and nothing set: the
//                 baseline of --compare-acl-quota, so that both sides start with the same
//                 INBOXes (a login creates one) and the same warm login cache.
//
// Single-threaded: one connection at a time. Failures throw WorkloadError or fail a check.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <unordered_map>

#include "bench/load/imap_client.h"
#include "bench/load/workloads.h"

namespace darius::bench {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string sharedName(size_t i) {
  char b[32];
  std::snprintf(b, sizeof b, "bench-%06zu", i);
  return b;
}

size_t stride(const Options& o) {
  if (o.shared == 0 || o.visible == 0 || o.shared % o.visible != 0) {
    throw HarnessError("--shared must be a positive multiple of --visible");
  }
  return o.shared / o.visible;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (auto& s : v) out += (out.empty() ? "" : "; ") + s;
  return out;
}

// The entries of "* ACL <mailbox> <id> <rights> ...": id -> rights (letters sorted).
std::map<std::string, std::string> parseAcl(const ImapResponse& r) {
  std::map<std::string, std::string> out;
  auto vals = parseImapValues(r, 6);  // after "* ACL "
  for (size_t i = 1; i + 1 < vals.size(); i += 2) {
    std::string rights = vals[i + 1].s;
    std::sort(rights.begin(), rights.end());
    out[lower(vals[i].s)] = rights;
  }
  return out;
}

}  // namespace

void runSharedSetup(const Options& o, Result& r) {
  size_t every = stride(o);
  if (o.admin_user.empty()) throw HarnessError("shared_setup needs --admin-user");
  ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
  im.login(o.admin_user, o.password);
  auto t0 = Clock::now();
  // The first one alone: does this server give a new top-level mailbox an "anyone" entry?
  std::string first = imapQuote(o.create_prefix + sharedName(0));
  im.command("CREATE " + first);
  bool drop_anyone = false;
  im.command("GETACL " + first, [&](ImapResponse& resp) {
    if (lower(resp.text.substr(0, 6)) == "* acl ") drop_anyone = parseAcl(resp).count("anyone") > 0;
  });
  std::vector<std::string> cmds;
  cmds.reserve(o.shared * 3);
  for (size_t i = 0; i < o.shared; ++i) {
    std::string q = i == 0 ? first : imapQuote(o.create_prefix + sharedName(i));
    if (i > 0) cmds.push_back("CREATE " + q);
    cmds.push_back("SETACL " + q + " " + (i % every == 0 ? o.mailbox_user : o.other_user) + " lr");
    if (drop_anyone) cmds.push_back("DELETEACL " + q + " anyone");
  }
  auto res = im.pipeline(cmds, 256);
  double s = secondsSince(t0);
  im.logout();
  r.metrics["setup_s"] = s;
  r.metrics["mailboxes_per_s"] = static_cast<double>(o.shared) / s;
  r.metrics["shared"] = static_cast<double>(o.shared);
  r.metrics["visible"] = static_cast<double>(o.visible);
  r.metrics["commands"] = static_cast<double>(cmds.size() + 2);
  r.checks["anyone_entry_removed"] = drop_anyone ? "yes" : "none";
  r.check("commands", res.failed == 0,
          countText(res.failed) + " of " + countText(cmds.size()) + " failed: " + join(res.errors));
}

void runImapList(const Options& o, Result& r) {
  size_t every = stride(o);
  std::unordered_map<std::string, int> expected;
  for (size_t i = 0; i < o.shared; i += every) expected[o.list_prefix + sharedName(i)] = 0;

  ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
  im.login(o.mailbox_user, o.password);
  struct Listing {
    size_t lines = 0, shared_ok = 0, unexpected = 0, dup = 0, placeholders = 0, personal = 0;
    bool inbox = false;
    std::string first_unexpected;
  };
  // The replies are kept during the timed command and checked after it, so the timing is
  // the server's answer and the client's reading of it, not the client's parsing.
  std::vector<ImapResponse> replies;
  auto list = [&]() {
    replies.clear();
    im.command("LIST \"\" \"*\"", [&](ImapResponse& resp) {
      if (lower(resp.text.substr(0, 7)) == "* list ") replies.push_back(std::move(resp));
    });
  };
  auto examine = [&]() {
    Listing l;
    for (auto& [k, v] : expected) v = 0;
    for (const ImapResponse& resp : replies) {
      ++l.lines;
      auto vals = parseImapValues(resp, 7);
      if (vals.size() != 3 || vals[0].kind != ImapValue::Kind::List) {
        throw WorkloadError("malformed LIST response: " + resp.text.substr(0, 200));
      }
      bool noselect = false;
      for (auto& a : vals[0].list) {
        std::string f = lower(a.s);
        if (f == "\\noselect" || f == "\\nonexistent") noselect = true;
      }
      const std::string& name = vals[2].s;
      if (noselect) {
        ++l.placeholders;
        continue;
      }
      auto it = expected.find(name);
      if (it != expected.end()) {
        if (it->second++ == 0) ++l.shared_ok;
        else ++l.dup;
      } else if (lower(name) == "inbox") {
        l.inbox = true;
        ++l.personal;
      } else if (l.unexpected++ == 0) {
        l.first_unexpected = name;
      }
    }
    return l;
  };
  auto verdict = [&](const Listing& l, const std::string& when) {
    r.check("visible" + when, l.shared_ok == expected.size(),
            "listed " + countText(l.shared_ok) + " of the " + countText(expected.size()) +
                " visible shared mailboxes");
    r.check("unexpected" + when, l.unexpected == 0 && l.dup == 0,
            countText(l.unexpected) + " names it should not show (first: " + l.first_unexpected +
                "), " + countText(l.dup) + " listed twice");
    r.check("inbox" + when, l.inbox, "INBOX not listed");
  };
  auto t0 = Clock::now();
  list();
  r.metrics["first_ms"] = secondsSince(t0) * 1e3;
  Listing cold = examine();
  verdict(cold, "");
  Latencies lat;
  size_t wrong_counts = 0;
  for (size_t k = 0; k < o.count; ++k) {
    auto t1 = Clock::now();
    list();
    lat.add(secondsSince(t1));
    Listing l = examine();
    if (l.lines != cold.lines || l.shared_ok != cold.shared_ok || l.unexpected || l.dup) ++wrong_counts;
  }
  im.logout();
  r.metrics["median_ms"] = lat.quantile(0.5) * 1e3;
  r.metrics["p90_ms"] = lat.quantile(0.9) * 1e3;
  r.metrics["returned"] = static_cast<double>(cold.lines);
  r.metrics["shared_listed"] = static_cast<double>(cold.shared_ok);
  r.metrics["non_selectable"] = static_cast<double>(cold.placeholders);
  r.metrics["shared_in_store"] = static_cast<double>(o.shared);
  r.latency["LIST \"\" \"*\""] = lat;
  r.check("stable", wrong_counts == 0,
          countText(wrong_counts) + " repetitions listed a different set");
}

void runAclQuota(const Options& o, Result& r) {
  if (o.users < 4) throw HarnessError("acl_quota needs at least 4 users");
  if (o.warm_only) {
    auto t0 = Clock::now();
    for (int pass = 0; pass < 2; ++pass) {
      for (int u = 1; u <= o.users; ++u) {
        ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
        im.login(o.user(u), o.password);
        im.command("NOOP");
        im.logout();
      }
      if (pass == 0 && !o.admin_user.empty()) {
        ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
        im.login(o.admin_user, o.password);
        im.logout();
      }
    }
    r.metrics["setup_s"] = secondsSince(t0);
    r.metrics["users"] = o.users;
    return;
  }
  auto other = [&](int u, int k) { return o.user((u - 1 + k) % o.users + 1); };
  auto t0 = Clock::now();
  size_t acl_bad = 0;
  std::string acl_detail;
  for (int u = 1; u <= o.users; ++u) {
    ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
    im.login(o.user(u), o.password);
    std::map<std::string, std::string> want = {{other(u, 1), "lr"}, {other(u, 2), "lrs"}, {"-" + other(u, 3), "w"}};
    std::vector<std::string> cmds;
    for (auto& [id, rights] : want) cmds.push_back("SETACL INBOX " + id + " " + rights);
    auto res = im.pipeline(cmds, cmds.size());
    if (res.failed) throw WorkloadError(o.user(u) + ": " + join(res.errors));
    std::map<std::string, std::string> got;
    im.command("GETACL INBOX", [&](ImapResponse& resp) {
      if (lower(resp.text.substr(0, 6)) == "* acl ") got = parseAcl(resp);
    });
    im.logout();
    for (auto& [id, rights] : want) {
      auto it = got.find(id);
      if ((it == got.end() || it->second != rights) && acl_bad++ == 0) {
        acl_detail = o.user(u) + " INBOX: " + id + " has \"" + (it == got.end() ? "no entry" : it->second) +
                     "\", want \"" + rights + "\"";
      }
    }
  }
  r.check("acl", acl_bad == 0, countText(acl_bad) + " entries wrong, first: " + acl_detail);
  if (!o.admin_user.empty()) {
    ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
    im.login(o.admin_user, o.password);
    std::vector<std::string> cmds;
    for (int u = 1; u <= o.users; ++u) {
      std::string root = o.quota_root;
      size_t p = root.find("%u");
      if (p != std::string::npos) root.replace(p, 2, o.user(u));
      cmds.push_back("SETQUOTA " + imapQuote(root) + " (STORAGE " + std::to_string(o.quota_kib) + " MESSAGE " +
                     std::to_string(o.quota_msgs) + ")");
    }
    auto res = im.pipeline(cmds, 64);
    im.logout();
    if (res.failed) throw WorkloadError("SETQUOTA: " + join(res.errors));
  }
  size_t quota_bad = 0;
  std::string quota_detail;
  for (int u = 1; u <= o.users; ++u) {
    ImapClient im = ImapClient::connect(o.host, o.imap_port, o.timeout_s);
    im.login(o.user(u), o.password);
    bool storage = false, msgs = false;
    std::string seen;
    im.command("GETQUOTAROOT INBOX", [&](ImapResponse& resp) {
      if (resp.text.rfind("* QUOTA ", 0) != 0) return;
      seen += resp.text + " ";
      std::string up = resp.text;
      for (auto& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      auto has = [&](const std::string& res, uint64_t limit) {
        // "RESOURCE <usage> <limit>"
        size_t p = up.find(res + " ");
        if (p == std::string::npos) return false;
        size_t sp = up.find(' ', p + res.size() + 1);
        if (sp == std::string::npos) return false;
        size_t end = up.find_first_of(" )", sp + 1);
        return up.substr(sp + 1, end - sp - 1) == std::to_string(limit);
      };
      storage = storage || has("STORAGE", o.quota_kib);
      msgs = msgs || has("MESSAGE", o.quota_msgs);
    });
    im.logout();
    if ((!storage || !msgs) && quota_bad++ == 0) {
      quota_detail = o.user(u) + ": " + (seen.empty() ? "no QUOTA response" : seen.substr(0, 200));
    }
  }
  r.check("quota", quota_bad == 0,
          countText(quota_bad) + " users without both limits, first: " + quota_detail);
  r.metrics["setup_s"] = secondsSince(t0);
  r.metrics["users"] = o.users;
}

}  // namespace darius::bench
