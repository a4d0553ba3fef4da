#include "tools/expire_command.h"

#include <charconv>
#include <cstdio>
#include <ctime>

#include "lib/config/values.h"
#include "mailbox/duplicate_db.h"
#include "mailbox/expire_policy_db.h"
#include "mailbox/namespace.h"
#include "mailbox/store.h"
#include "tools/cli_common.h"

namespace darius::tools {

using mailbox::MailboxName;

namespace {

int expireUsageError(const std::string& what, const std::string& why) {
  std::fprintf(stderr, "darius: %s: %s\n", what.c_str(), why.c_str());
  return kExitUsage;
}

std::string jsonPolicy(const mailbox::ExpirePolicy& p) {
  return "{\"vol_min\": " + std::to_string(p.vol_min) + ", \"vol_max\": " +
         std::to_string(p.vol_max) + ", \"vol_overflow\": " + std::to_string(p.vol_overflow) +
         ", \"timeout_seconds\": " + std::to_string(p.timeout_seconds) + "}";
}

std::string jsonOutcome(const mailbox::ExpireOutcome& o) {
  std::string out = "{\"owner\": " + jsonString(o.owner) +
                    ", \"held_messages\": " + std::to_string(o.held_messages) +
                    ", \"held_bytes\": " + std::to_string(o.held_bytes) +
                    ", \"removed_messages\": " + std::to_string(o.removed_messages) +
                    ", \"removed_bytes\": " + std::to_string(o.removed_bytes) +
                    ", \"compacted_mailboxes\": " + std::to_string(o.compacted_mailboxes) +
                    ", \"policy\": " + jsonPolicy(o.policy) + ", \"mailboxes\": [";
  for (size_t i = 0; i < o.mailboxes.size(); ++i) {
    const auto& m = o.mailboxes[i];
    out += std::string(i ? ", " : "") + "{\"mailbox\": " + jsonString(m.mailbox) +
           ", \"removed\": " + std::to_string(m.removed) + ", \"bytes\": " +
           std::to_string(m.bytes) + "}";
  }
  return out + "]}";
}

}  // namespace

std::optional<int64_t> parseCliTime(const std::string& text) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (!text.empty() && ec == std::errc() && end == text.data() + text.size()) return n;
  std::tm tm{};
  unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char tail = 0;
  int got = std::sscanf(text.c_str(), "%4u-%2u-%2uT%2u:%2u:%2u%c", &y, &mo, &d, &h, &mi, &s, &tail);
  if (got != 3 && got != 6) return std::nullopt;
  if (got == 3 && text.size() != 10) return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  tm.tm_year = static_cast<int>(y) - 1900;
  tm.tm_mon = static_cast<int>(mo) - 1;
  tm.tm_mday = static_cast<int>(d);
  tm.tm_hour = static_cast<int>(h);
  tm.tm_min = static_cast<int>(mi);
  tm.tm_sec = static_cast<int>(s);
  return static_cast<int64_t>(::timegm(&tm));
}

int runExpireCommand(const std::string& config_path, const ExpireCommand& cmd) {
  auto config = loadConfig(config_path);
  if (!config.ok()) {
    std::fprintf(stderr, "darius: %s\n", config.status().message().c_str());
    return kExitConfig;
  }
  if (cmd.all == !cmd.user.empty())
    return expireUsageError("expire", "give exactly one of --user U and --all");
  mailbox::ExpireOptions o;
  o.policy = mailbox::ExpirePolicy::fromConfig(*config);
  o.now = static_cast<int64_t>(::time(nullptr));
  if (!cmd.at.empty()) {
    auto t = parseCliTime(cmd.at);
    if (!t) return expireUsageError("expire", "--at: '" + cmd.at + "' is not a time");
    o.now = *t;
  }
  o.dry_run = cmd.dry_run;
  o.everything = cmd.everything;
  std::optional<MailboxName> scope;
  if (!cmd.user.empty()) {
    auto ns = mailbox::Namespace::fromConfig(*config);
    if (!ns.ok()) return reportFailure("expire", ns.status());
    auto user = ns->parseUser(cmd.user);
    if (!user.ok()) return expireUsageError("expire", user.status().message());
    auto inbox = ns->inboxOf(*user);
    if (!inbox.ok()) return expireUsageError("expire", inbox.status().message());
    scope = *inbox;
  }
  auto opened = mailbox::Store::open(*config);
  if (!opened.ok()) return reportFailure("expire: cannot open the store", opened.status());
  auto outcomes = (*opened)->expire(scope, o);
  if (!outcomes.ok()) return reportFailure("expire", outcomes.status());
  // Then the deleted folders, by their own policy (deleted_*).
  o.deleted_policy = mailbox::ExpirePolicy::deletedFromConfig(*config);
  auto deleted = (*opened)->expireDeleted(scope, o);
  if (!deleted.ok()) return reportFailure("expire: deleted folders", deleted.status());
  // --all also tidies duplicates.db, as dariusd's nightly run does. (Change-log segments are
  // left: no reader's position is recorded yet, so none is known to be passed by all.)
  std::optional<size_t> pruned;
  if (cmd.all && !cmd.dry_run && config->getDuration("duplicate_suppression_window").count() > 0) {
    auto dups = mailbox::DuplicateDb::open(*config);
    auto n = dups.ok() ? (*dups)->prune(o.now) : base::Result<size_t>(dups.status());
    if (!n.ok()) return reportFailure("expire: duplicates.db", n.status());
    pruned = *n;
  }
  if (cmd.json) {
    std::string out = "{\"dry_run\": " + std::string(cmd.dry_run ? "true" : "false") +
                      (pruned ? ", \"duplicates_pruned\": " + std::to_string(*pruned) : "") +
                      ", \"owners\": [";
    for (size_t i = 0; i < outcomes->size(); ++i) {
      out += std::string(i ? ", " : "") + jsonOutcome((*outcomes)[i]);
    }
    out += "], \"deleted\": [";
    for (size_t i = 0; i < deleted->size(); ++i) {
      const auto& d = (*deleted)[i];
      out += std::string(i ? ", " : "") + "{\"owner\": " + jsonString(d.owner) +
             ", \"held_folders\": " + std::to_string(d.held_messages) +
             ", \"held_bytes\": " + std::to_string(d.held_bytes) +
             ", \"removed_folders\": " + std::to_string(d.removed_messages) +
             ", \"removed_bytes\": " + std::to_string(d.removed_bytes) + ", \"folders\": [";
      for (size_t k = 0; k < d.folders.size(); ++k) {
        out += std::string(k ? ", " : "") + jsonString(d.folders[k]);
      }
      out += "]}";
    }
    std::printf("%s]}\n", out.c_str());
    return 0;
  }
  for (const auto& oc : *outcomes) {
    std::printf("%s: held %zu messages (%llu bytes), %s %zu (%llu bytes)\n", oc.owner.c_str(),
                oc.held_messages, static_cast<unsigned long long>(oc.held_bytes),
                cmd.dry_run ? "would remove" : "removed", oc.removed_messages,
                static_cast<unsigned long long>(oc.removed_bytes));
    for (const auto& m : oc.mailboxes) {
      std::printf("  %s: %zu (%llu bytes)\n", m.mailbox.c_str(), m.removed,
                  static_cast<unsigned long long>(m.bytes));
    }
    if (oc.compacted_mailboxes > 0) {
      std::printf("  compacted %zu mailboxes\n", oc.compacted_mailboxes);
    }
  }
  for (const auto& d : *deleted) {
    std::printf("%s: held %zu deleted folders (%llu bytes), %s %zu (%llu bytes)\n",
                d.owner.c_str(), d.held_messages, static_cast<unsigned long long>(d.held_bytes),
                cmd.dry_run ? "would remove" : "removed", d.removed_messages,
                static_cast<unsigned long long>(d.removed_bytes));
    for (const auto& f : d.folders) std::printf("  %s\n", f.c_str());
  }
  if (pruned) std::printf("duplicates.db: pruned %zu entries\n", *pruned);
  return 0;
}

namespace {

// The owner --user or --mailbox names, as expire_policy_db.h keys it.
base::Result<MailboxName> policyOwner(const config::Config& config,
                                      const ExpirePolicyCommand& cmd) {
  if (cmd.user.empty() == cmd.mailbox.empty()) {
    return base::Status::invalid("give exactly one of --user U and --mailbox NAME");
  }
  if (!cmd.mailbox.empty()) {
    DARIUS_ASSIGN_OR_RETURN(MailboxName n, MailboxName::parse(cmd.mailbox));
    if (n.isPersonal() && !n.isInbox()) {
      return base::Status::invalid(cmd.mailbox + " belongs to a user: give --user " + n.userId());
    }
    return mailbox::expireOwnerOf(n);
  }
  DARIUS_ASSIGN_OR_RETURN(auto ns, mailbox::Namespace::fromConfig(config));
  DARIUS_ASSIGN_OR_RETURN(auto user, ns.parseUser(cmd.user));
  return ns.inboxOf(user);
}

std::string printValue(uint64_t v, bool timeout) {
  return std::to_string(v) + (timeout ? "s" : "");
}

// One area's rows of `show`: name, effective value, and where it comes from.
void showArea(const mailbox::ExpireOverrides& o, const mailbox::ExpirePolicy& global,
              mailbox::ExpireArea area, bool json, std::string* out) {
  mailbox::ExpireOverrides copy = o;
  const mailbox::ExpirePolicy eff =
      (area == mailbox::ExpireArea::kExpunged ? o.expunged : o.deleted).over(global);
  const uint64_t effective[] = {eff.vol_min, eff.vol_max, eff.vol_overflow,
                                static_cast<uint64_t>(eff.timeout_seconds)};
  for (size_t i = 0; i < std::size(mailbox::kExpireOverrideFields); ++i) {
    const auto& f = mailbox::kExpireOverrideFields[i];
    if (f.area != area) continue;
    bool set = false;
    if (auto* v = mailbox::overrideSize(copy, i)) set = v->has_value();
    if (auto* v = mailbox::overrideTimeout(copy, i)) set = v->has_value();
    uint64_t value = effective[i % 4];
    if (json) {
      *out += std::string(out->back() == '{' ? "" : ", ") + jsonString(f.name) +
              ": {\"value\": " + std::to_string(value) +
              ", \"override\": " + (set ? "true" : "false") + "}";
    } else {
      *out += "  " + std::string(f.name) + ": " + printValue(value, f.is_timeout) +
              (set ? " (override)" : " (default)") + "\n";
    }
  }
}

std::string jsonOverrides(mailbox::ExpireOverrides o) {
  std::string out = "{";
  for (size_t i = 0; i < std::size(mailbox::kExpireOverrideFields); ++i) {
    std::optional<uint64_t> v;
    if (auto* s = mailbox::overrideSize(o, i)) v = *s;
    if (auto* t = mailbox::overrideTimeout(o, i); t && *t) v = static_cast<uint64_t>(**t);
    if (!v) continue;
    out += std::string(out.size() > 1 ? ", " : "") +
           jsonString(mailbox::kExpireOverrideFields[i].name) + ": " + std::to_string(*v);
  }
  return out + "}";
}

}  // namespace

int runExpirePolicyCommand(const std::string& config_path, const ExpirePolicyCommand& cmd) {
  auto config = loadConfig(config_path);
  if (!config.ok()) {
    std::fprintf(stderr, "darius: %s\n", config.status().message().c_str());
    return kExitConfig;
  }
  const std::string what = "expire policy " + cmd.action;
  std::optional<MailboxName> owner;
  if (cmd.action != "show" || !cmd.user.empty() || !cmd.mailbox.empty()) {
    auto o = policyOwner(*config, cmd);
    if (!o.ok()) return expireUsageError(what, o.status().message());
    owner = *o;
  }
  // Parse every value before touching anything: a bad one changes nothing.
  mailbox::ExpireOverrides given;
  std::vector<bool> dropped(std::size(mailbox::kExpireOverrideFields), false);
  bool any = false;
  for (size_t i = 0; i < cmd.values.size() && i < std::size(mailbox::kExpireOverrideFields);
       ++i) {
    if (!cmd.values[i]) continue;
    any = true;
    const auto& f = mailbox::kExpireOverrideFields[i];
    const std::string& text = *cmd.values[i];
    if (text == "default") {
      dropped[i] = true;
      continue;
    }
    if (f.is_timeout) {
      auto d = config::parseDuration(text);
      if (!d.ok()) return expireUsageError(what, std::string(f.name) + ": " + d.status().message());
      *mailbox::overrideTimeout(given, i) =
          std::chrono::duration_cast<std::chrono::seconds>(*d).count();
    } else {
      auto n = config::parseSize(text);
      if (!n.ok()) return expireUsageError(what, std::string(f.name) + ": " + n.status().message());
      *mailbox::overrideSize(given, i) = *n;
    }
  }
  if (cmd.action == "set" && !any)
    return expireUsageError(what, "give at least one setting to change");
  if (cmd.action != "set" && any) return expireUsageError(what, "settings are given only to set");

  auto opened = mailbox::Store::open(*config);
  if (!opened.ok()) return reportFailure(what + ": cannot open the store", opened.status());
  mailbox::ExpirePolicyDb& db = (*opened)->expirePolicies();
  if (cmd.action == "clear") {
    if (auto s = db.clear(*owner); !s.isOk()) return reportFailure(what, s);
    return 0;
  }
  if (cmd.action == "set") {
    auto r = db.update(*owner, [&](mailbox::ExpireOverrides& o) {
      for (size_t i = 0; i < dropped.size(); ++i) {
        if (!dropped[i]) continue;
        if (auto* v = mailbox::overrideSize(o, i)) v->reset();
        if (auto* v = mailbox::overrideTimeout(o, i)) v->reset();
      }
      o.expunged.merge(given.expunged);
      o.deleted.merge(given.deleted);
    });
    if (!r.ok()) return reportFailure(what + " " + owner->toString(), r.status());
    if (cmd.json) std::printf("{\"owner\": %s, \"overrides\": %s}\n",
                              jsonString(owner->toString()).c_str(), jsonOverrides(*r).c_str());
    return 0;
  }
  // show
  const mailbox::ExpirePolicy expunged = mailbox::ExpirePolicy::fromConfig(*config);
  const mailbox::ExpirePolicy deleted = mailbox::ExpirePolicy::deletedFromConfig(*config);
  if (owner) {
    auto o = db.get(*owner);
    if (!o.ok()) return reportFailure(what + " " + owner->toString(), o.status());
    mailbox::ExpireOverrides ov = o->value_or(mailbox::ExpireOverrides{});
    std::string out = cmd.json ? "{" : owner->toString() + ":\n";
    if (cmd.json) out += "\"owner\": " + jsonString(owner->toString()) + ", \"policy\": {";
    showArea(ov, expunged, mailbox::ExpireArea::kExpunged, cmd.json, &out);
    showArea(ov, deleted, mailbox::ExpireArea::kDeleted, cmd.json, &out);
    if (cmd.json) out += "}}\n";
    std::fputs(out.c_str(), stdout);
    return 0;
  }
  std::string out = "{\"owners\": [";
  size_t n = 0;
  auto s = db.list([&](const MailboxName& name, const mailbox::ExpireOverrides& o) {
    if (cmd.json) {
      out += std::string(n ? ", " : "") + "{\"owner\": " + jsonString(name.toString()) +
             ", \"overrides\": " + jsonOverrides(o) + "}";
    } else {
      std::string line = name.toString() + ":";
      std::string enc = mailbox::encodeExpireOverrides(o);  // "1 name=value ..."
      line += enc.substr(1);
      std::printf("%s\n", line.c_str());
    }
    ++n;
    return true;
  });
  if (!s.isOk()) return reportFailure(what, s);
  if (cmd.json) std::printf("%s]}\n", out.c_str());
  return 0;
}

int runUnexpungeCommand(const std::string& config_path, const UnexpungeCommand& cmd) {
  auto config = loadConfig(config_path);
  if (!config.ok()) {
    std::fprintf(stderr, "darius: %s\n", config.status().message().c_str());
    return kExitConfig;
  }
  int picks = (cmd.uids.empty() ? 0 : 1) + (cmd.since.empty() ? 0 : 1) + (cmd.all ? 1 : 0);
  if (picks != 1)
    return expireUsageError("unexpunge", "give exactly one of --uid, --since and --all");
  std::optional<int64_t> since;
  if (!cmd.since.empty()) {
    since = parseCliTime(cmd.since);
    if (!since) return expireUsageError("unexpunge", "--since: '" + cmd.since + "' is not a time");
  }
  auto from_name = MailboxName::parse(cmd.mailbox);
  if (!from_name.ok()) return expireUsageError("unexpunge", from_name.status().message());
  auto to_name = MailboxName::parse(cmd.into.empty() ? cmd.mailbox : cmd.into);
  if (!to_name.ok()) return expireUsageError("unexpunge", to_name.status().message());

  auto opened = mailbox::Store::open(*config);
  if (!opened.ok()) return reportFailure("unexpunge: cannot open the store", opened.status());
  mailbox::Store& store = **opened;
  auto from = store.openMailbox(*from_name);
  if (!from.ok()) return reportFailure("unexpunge " + cmd.mailbox, from.status());
  auto to = store.openMailbox(*to_name);
  if (!to.ok()) return reportFailure("unexpunge into " + to_name->toString(), to.status());
  auto held = from->mailbox->expungedRecords();
  if (!held.ok()) return reportFailure("unexpunge " + cmd.mailbox, held.status());
  std::vector<uint32_t> uids;
  for (const mailbox::IndexRecord& r : *held) {
    bool pick = cmd.all || (since && r.expunged_at >= *since);
    for (uint32_t u : cmd.uids) pick = pick || u == r.uid;
    if (pick) uids.push_back(r.uid);
  }
  auto done = store.unexpunge(*from->mailbox, uids, *to_name, *to->mailbox);
  if (!done.ok()) return reportFailure("unexpunge " + cmd.mailbox, done.status());
  if (cmd.json) {
    std::string out = "{\"into\": " + jsonString(to_name->toString()) +
                      ", \"uidvalidity\": " + std::to_string(done->target_uidvalidity) +
                      ", \"restored\": [";
    for (size_t i = 0; i < done->uids.size(); ++i) {
      out += std::string(i ? ", " : "") + "{\"from\": " + std::to_string(done->uids[i].from) +
             ", \"to\": " + std::to_string(done->uids[i].to) + "}";
    }
    std::printf("%s]}\n", out.c_str());
    return 0;
  }
  std::printf("restored %zu into %s:", done->uids.size(), to_name->toString().c_str());
  for (const auto& c : done->uids) std::printf(" %u->%u", c.from, c.to);
  std::printf("\n");
  return 0;
}

}  // namespace darius::tools
