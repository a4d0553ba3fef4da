#include "tools/quota_command.h"

#include <charconv>
#include <cstdio>

#include "mailbox/namespace.h"
#include "mailbox/store.h"
#include "tools/cli_common.h"

namespace darius::tools {

using base::Status;
using mailbox::MailboxName;
using mailbox::QuotaResource;

namespace {

int quotaUsageError(const std::string& what, const std::string& why) {
  std::fprintf(stderr, "darius: quota %s: %s\n", what.c_str(), why.c_str());
  return kExitUsage;
}

std::string name(QuotaResource r) { return std::string(mailbox::quotaResourceName(r)); }

// "RES=n" / "RES=none" into `limits`; the reason on failure.
std::optional<std::string> applyLimit(std::string_view arg, mailbox::QuotaLimits& limits) {
  size_t eq = arg.find('=');
  if (eq == std::string_view::npos) return "expected RESOURCE=LIMIT, got '" + std::string(arg) + "'";
  auto r = mailbox::parseQuotaResource(arg.substr(0, eq));
  if (!r) return "unknown resource '" + std::string(arg.substr(0, eq)) + "'";
  std::string_view v = arg.substr(eq + 1);
  if (v.size() == 4 && (v[0] | 0x20) == 'n' && (v[1] | 0x20) == 'o' && (v[2] | 0x20) == 'n' &&
      (v[3] | 0x20) == 'e') {
    limits[*r].reset();
    return std::nullopt;
  }
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() ||
      n > mailbox::kMaxQuotaLimit) {
    return "limit '" + std::string(v) + "' is not a number from 0 to 2^63-1, or none";
  }
  limits[*r] = n;
  return std::nullopt;
}

std::string jsonRoot(const mailbox::QuotaRootInfo& q) {
  std::string out = "{\"root\": " + jsonString(q.root.toString()) + ", \"resources\": {";
  bool first = true;
  for (QuotaResource r : mailbox::kQuotaResources) {
    out += std::string(first ? "" : ", ") + "\"" + name(r) +
           "\": {\"usage\": " + std::to_string(mailbox::reportedUsage(q.usage, r)) +
           ", \"limit\": " + (q.limits[r] ? std::to_string(*q.limits[r]) : "null") + "}";
    first = false;
  }
  return out + "}}";
}

void printRoot(const mailbox::QuotaRootInfo& q, bool json) {
  if (json) {
    std::printf("%s\n", jsonRoot(q).c_str());
    return;
  }
  for (QuotaResource r : mailbox::kQuotaResources) {
    std::printf("%s\t%llu\t%s\n", name(r).c_str(),
                static_cast<unsigned long long>(mailbox::reportedUsage(q.usage, r)),
                q.limits[r] ? std::to_string(*q.limits[r]).c_str() : "none");
  }
}

// The roots `darius quota recalc` looks at: a user's INBOX and the roots in their tree, or
// every root.
base::Result<std::vector<MailboxName>> recalcRoots(mailbox::Store& store,
                                                   const config::Config& config,
                                                   const QuotaCommand& cmd) {
  std::vector<MailboxName> roots;
  if (cmd.all) {
    DARIUS_ASSIGN_OR_RETURN(auto all, store.listQuotas(""));
    for (const auto& q : all) roots.push_back(q.root);
    return roots;
  }
  DARIUS_ASSIGN_OR_RETURN(mailbox::Namespace ns, mailbox::Namespace::fromConfig(config));
  DARIUS_ASSIGN_OR_RETURN(mailbox::UserName user, ns.parseUser(cmd.user));
  DARIUS_ASSIGN_OR_RETURN(MailboxName inbox, ns.inboxOf(user));
  roots.push_back(inbox);
  DARIUS_RETURN_IF_ERROR(store.quotas().scanSubtree(
      inbox, /*strict=*/true, [&](const MailboxName& n, const mailbox::QuotaLimits&) {
        roots.push_back(n);
        return true;
      }));
  return roots;
}

}  // namespace

int runQuotaCommand(const std::string& config_path, const QuotaCommand& cmd) {
  auto config = loadConfig(config_path);
  if (!config.ok()) {
    std::fprintf(stderr, "darius: %s\n", config.status().message().c_str());
    return kExitConfig;
  }
  // Everything typed is checked before the store is touched.
  std::optional<MailboxName> root;
  if (cmd.action == "get" || cmd.action == "set") {
    auto r = MailboxName::parse(cmd.root);
    if (!r.ok()) return quotaUsageError(cmd.action, r.status().message());
    root = *r;
  }
  if (cmd.action == "recalc" && cmd.all == !cmd.user.empty()) {
    return quotaUsageError("recalc", "give exactly one of --user U and --all");
  }
  mailbox::QuotaLimits probe;
  for (const std::string& l : cmd.limits) {
    if (auto why = applyLimit(l, probe)) return quotaUsageError(cmd.action, *why);
  }

  auto opened = mailbox::Store::open(*config);
  if (!opened.ok()) return reportFailure("quota: cannot open the store", opened.status());
  mailbox::Store& store = **opened;

  if (cmd.action == "get") {
    auto q = store.quota(*root);
    if (!q.ok()) return reportFailure("quota get " + cmd.root, q.status());
    printRoot(*q, cmd.json);
    return 0;
  }
  if (cmd.action == "set") {
    // Only the named limits change. (Two admins setting different limits of one root at
    // once may each keep the other's old value; as with two SETQUOTAs, the last one wins.)
    auto before = store.quotas().get(*root);
    if (!before.ok()) return reportFailure("quota set " + cmd.root, before.status());
    mailbox::QuotaLimits limits = before->value_or(mailbox::QuotaLimits{});
    for (const std::string& l : cmd.limits) (void)applyLimit(l, limits);
    Status s = store.setQuota(*root, limits);
    if (!s.isOk()) return reportFailure("quota set " + cmd.root, s);
    auto q = store.quota(*root);
    if (!q.ok()) return reportFailure("quota set " + cmd.root, q.status());
    printRoot(*q, cmd.json);
    return 0;
  }
  if (cmd.action == "list") {
    auto all = store.listQuotas(cmd.prefix);
    if (!all.ok()) return reportFailure("quota list", all.status());
    if (cmd.json) {
      std::string out = "{\"roots\": [";
      for (size_t i = 0; i < all->size(); ++i) out += (i ? ", " : "") + jsonRoot((*all)[i]);
      std::printf("%s]}\n", out.c_str());
      return 0;
    }
    for (const auto& q : *all) {
      std::string line = q.root.toString();
      for (QuotaResource r : mailbox::kQuotaResources) {
        line += "\t" + name(r) + " " + std::to_string(mailbox::reportedUsage(q.usage, r)) + "/" +
                (q.limits[r] ? std::to_string(*q.limits[r]) : "none");
      }
      std::printf("%s\n", line.c_str());
    }
    return 0;
  }
  if (cmd.action == "recalc") {
    auto roots = recalcRoots(store, *config, cmd);
    if (!roots.ok()) return reportFailure("quota recalc", roots.status());
    auto diffs = store.recalcQuota(*roots, cmd.dry_run);
    if (!diffs.ok()) return reportFailure("quota recalc", diffs.status());
    if (cmd.json) {
      std::string out = "{\"fixed\": " + std::string(cmd.dry_run || diffs->empty() ? "false" : "true") +
                        ", \"differences\": [";
      for (size_t i = 0; i < diffs->size(); ++i) {
        const auto& d = (*diffs)[i];
        out += std::string(i ? ", " : "") + "{\"root\": " + jsonString(d.root.toString()) +
               ", \"resource\": \"" + name(d.resource) + "\", \"stored\": " +
               std::to_string(d.stored) + ", \"actual\": " + std::to_string(d.actual) + "}";
      }
      std::printf("%s]}\n", out.c_str());
    } else {
      for (const auto& d : *diffs) {
        std::printf("%s: %s %llu -> %llu\n", d.root.toString().c_str(), name(d.resource).c_str(),
                    static_cast<unsigned long long>(d.stored),
                    static_cast<unsigned long long>(d.actual));
      }
    }
    return diffs->empty() ? 0 : kExitFailed;
  }
  std::fprintf(stderr, "darius: quota: unknown action %s\n", cmd.action.c_str());
  return kExitUsage;
}

}  // namespace darius::tools
