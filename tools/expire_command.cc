#include "tools/expire_command.h"

#include <charconv>
#include <cstdio>
#include <ctime>

#include "mailbox/namespace.h"
#include "mailbox/store.h"
#include "tools/cli_common.h"

namespace darius::tools {

using mailbox::MailboxName;

namespace {

int usage(const std::string& what, const std::string& why) {
  std::fprintf(stderr, "darius: %s: %s\n", what.c_str(), why.c_str());
  return kExitUsage;
}

std::string jsonOutcome(const mailbox::ExpireOutcome& o) {
  std::string out = "{\"owner\": " + jsonString(o.owner) +
                    ", \"held_messages\": " + std::to_string(o.held_messages) +
                    ", \"held_bytes\": " + std::to_string(o.held_bytes) +
                    ", \"removed_messages\": " + std::to_string(o.removed_messages) +
                    ", \"removed_bytes\": " + std::to_string(o.removed_bytes) +
                    ", \"mailboxes\": [";
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
  if (cmd.all == !cmd.user.empty()) return usage("expire", "give exactly one of --user U and --all");
  mailbox::ExpireOptions o;
  o.policy = mailbox::ExpirePolicy::fromConfig(*config);
  o.now = static_cast<int64_t>(::time(nullptr));
  if (!cmd.at.empty()) {
    auto t = parseCliTime(cmd.at);
    if (!t) return usage("expire", "--at: '" + cmd.at + "' is not a time");
    o.now = *t;
  }
  o.dry_run = cmd.dry_run;
  o.everything = cmd.everything;
  std::optional<MailboxName> scope;
  if (!cmd.user.empty()) {
    auto ns = mailbox::Namespace::fromConfig(*config);
    if (!ns.ok()) return reportFailure("expire", ns.status());
    auto user = ns->parseUser(cmd.user);
    if (!user.ok()) return usage("expire", user.status().message());
    auto inbox = ns->inboxOf(*user);
    if (!inbox.ok()) return usage("expire", inbox.status().message());
    scope = *inbox;
  }
  auto opened = mailbox::Store::open(*config);
  if (!opened.ok()) return reportFailure("expire: cannot open the store", opened.status());
  auto outcomes = (*opened)->expire(scope, o);
  if (!outcomes.ok()) return reportFailure("expire", outcomes.status());
  if (cmd.json) {
    std::string out = "{\"dry_run\": " + std::string(cmd.dry_run ? "true" : "false") +
                      ", \"owners\": [";
    for (size_t i = 0; i < outcomes->size(); ++i) {
      out += std::string(i ? ", " : "") + jsonOutcome((*outcomes)[i]);
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
  }
  return 0;
}

int runUnexpungeCommand(const std::string& config_path, const UnexpungeCommand& cmd) {
  auto config = loadConfig(config_path);
  if (!config.ok()) {
    std::fprintf(stderr, "darius: %s\n", config.status().message().c_str());
    return kExitConfig;
  }
  int picks = (cmd.uids.empty() ? 0 : 1) + (cmd.since.empty() ? 0 : 1) + (cmd.all ? 1 : 0);
  if (picks != 1) return usage("unexpunge", "give exactly one of --uid, --since and --all");
  std::optional<int64_t> since;
  if (!cmd.since.empty()) {
    since = parseCliTime(cmd.since);
    if (!since) return usage("unexpunge", "--since: '" + cmd.since + "' is not a time");
  }
  auto from_name = MailboxName::parse(cmd.mailbox);
  if (!from_name.ok()) return usage("unexpunge", from_name.status().message());
  auto to_name = MailboxName::parse(cmd.into.empty() ? cmd.mailbox : cmd.into);
  if (!to_name.ok()) return usage("unexpunge", to_name.status().message());

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
