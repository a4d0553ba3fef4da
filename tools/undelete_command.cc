#include "tools/undelete_command.h"

#include <cstdio>

#include "mailbox/deleted_area.h"
#include "mailbox/namespace.h"
#include "mailbox/store.h"
#include "tools/cli_common.h"

namespace darius::tools {

using mailbox::DeletedMailbox;
using mailbox::MailboxName;

namespace {

int undeleteUsageError(const std::string& why) {
  std::fprintf(stderr, "darius: undelete: %s\n", why.c_str());
  return kExitUsage;
}

std::string shown(const DeletedMailbox& d) {
  return d.name.toString() + mailbox::deletedSuffix(d.deleted_at, d.ordinal);
}

std::string json(const DeletedMailbox& d) {
  return "{\"entry\": " + jsonString(d.entry) + ", \"partition\": " + jsonString(d.partition) +
         ", \"mailbox\": " + jsonString(d.name.toString()) + ", \"name\": " +
         jsonString(shown(d)) + ", \"deleted_at\": " + std::to_string(d.deleted_at) +
         ", \"uidvalidity\": " + std::to_string(d.uidvalidity) + "}";
}

}  // namespace

int runUndeleteCommand(const std::string& config_path, const UndeleteCommand& cmd) {
  auto config = loadConfig(config_path);
  if (!config.ok()) {
    std::fprintf(stderr, "darius: %s\n", config.status().message().c_str());
    return kExitConfig;
  }
  if (cmd.list == !cmd.deleted.empty())
    return undeleteUsageError("give either --list or DELETED-NAME");
  if (!cmd.list && !cmd.user.empty()) return undeleteUsageError("--user goes with --list");
  std::optional<MailboxName> scope;
  if (!cmd.user.empty()) {
    auto ns = mailbox::Namespace::fromConfig(*config);
    if (!ns.ok()) return reportFailure("undelete", ns.status());
    auto user = ns->parseUser(cmd.user);
    if (!user.ok()) return undeleteUsageError(user.status().message());
    auto inbox = ns->inboxOf(*user);
    if (!inbox.ok()) return undeleteUsageError(inbox.status().message());
    scope = *inbox;
  }
  std::optional<MailboxName> to;
  if (!cmd.new_name.empty()) {
    auto n = MailboxName::parse(cmd.new_name);
    if (!n.ok()) return undeleteUsageError("NEW-NAME: " + n.status().message());
    to = *n;
  }
  auto opened = mailbox::Store::open(*config);
  if (!opened.ok()) return reportFailure("undelete: cannot open the store", opened.status());
  mailbox::Store& store = **opened;
  auto all = store.listDeleted(scope);
  if (!all.ok()) return reportFailure("undelete", all.status());
  if (cmd.list) {
    if (cmd.json) {
      std::string out = "[";
      for (size_t i = 0; i < all->size(); ++i) out += (i ? ", " : "") + json((*all)[i]);
      std::printf("%s]\n", out.c_str());
      return 0;
    }
    for (const DeletedMailbox& d : *all) {
      std::printf("%s:%s  %s  UIDVALIDITY %u\n", d.partition.c_str(), d.entry.c_str(),
                  shown(d).c_str(), d.uidvalidity);
    }
    return 0;
  }
  const DeletedMailbox* pick = nullptr;
  for (const DeletedMailbox& d : *all) {
    if (d.entry == cmd.deleted || d.partition + ":" + d.entry == cmd.deleted ||
        shown(d) == cmd.deleted) {
      pick = &d;
      break;
    }
  }
  if (pick == nullptr) {
    std::fprintf(stderr, "darius: undelete: no deleted folder %s (see `darius undelete --list`)\n",
                 cmd.deleted.c_str());
    return 1;
  }
  const MailboxName target = to ? *to : pick->name;
  auto back = store.undelete(*pick, target);
  if (!back.ok()) return reportFailure("undelete " + cmd.deleted, back.status());
  if (cmd.json) {
    std::printf("{\"undeleted\": %s, \"as\": %s, \"uidvalidity\": %u}\n", json(*pick).c_str(),
                jsonString(target.toString()).c_str(), back->uidvalidity);
  } else {
    std::printf("undeleted %s as %s (UIDVALIDITY %u)\n", shown(*pick).c_str(),
                target.toString().c_str(), back->uidvalidity);
  }
  return 0;
}

}  // namespace darius::tools
