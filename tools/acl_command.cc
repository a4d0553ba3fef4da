#include "tools/acl_command.h"

#include <cstdio>

#include "auth/user_store.h"
#include "mailbox/acl.h"
#include "mailbox/acl_identifier.h"
#include "mailbox/namespace.h"
#include "mailbox/store.h"
#include "tools/cli_common.h"

namespace darius::tools {

using base::Status;
using mailbox::MailboxName;

namespace {

int aclUsageError(const std::string& what, const Status& why) {
  std::fprintf(stderr, "darius: acl %s: %s\n", what.c_str(), why.message().c_str());
  return kExitUsage;
}

void print(const MailboxName& name, const mailbox::Acl& acl, bool json) {
  if (!json) {
    for (const mailbox::AclEntry& e : acl.entries()) {
      std::printf("%s\t%s\n", e.identifier.c_str(), mailbox::rightsToString(e.rights).c_str());
    }
    return;
  }
  std::string out = "{\"mailbox\": " + jsonString(name.toString()) + ", \"acl\": [";
  bool first = true;
  for (const mailbox::AclEntry& e : acl.entries()) {
    out += std::string(first ? "" : ", ") + "{\"identifier\": " + jsonString(e.identifier) +
           ", \"rights\": " + jsonString(mailbox::rightsToString(e.rights)) + "}";
    first = false;
  }
  out += "]}\n";
  std::fputs(out.c_str(), stdout);
}

}  // namespace

int runAclCommand(const std::string& config_path, const AclCommand& cmd) {
  auto config = loadConfig(config_path);
  if (!config.ok()) {
    std::fprintf(stderr, "darius: %s\n", config.status().message().c_str());
    return kExitConfig;
  }
  auto name = MailboxName::parse(cmd.mailbox);
  if (!name.ok()) return aclUsageError(cmd.action, name.status());
  auto ns = mailbox::Namespace::fromConfig(*config);
  if (!ns.ok()) return reportFailure("acl: namespace options", ns.status());

  // Everything the user typed is checked before the store is touched.
  mailbox::RightsChange change;  // delete: replace with nothing
  std::string identifier;
  if (cmd.action == "set" || cmd.action == "delete") {
    auto id = mailbox::canonicalIdentifier(cmd.identifier, *ns, name->domain());
    if (!id.ok()) {
      if (id.status().code() == base::Code::kPermission) {
        return reportFailure("acl " + cmd.action + " " + cmd.identifier, id.status());
      }
      return aclUsageError(cmd.action, id.status());
    }
    if (cmd.action == "set") {
      auto parsed = mailbox::parseRightsChange(cmd.rights);
      if (!parsed.ok()) return aclUsageError(cmd.action, parsed.status());
      change = *parsed;
      Status allowed = mailbox::checkGrant(*id, change);
      if (!allowed.isOk()) return reportFailure("acl set " + cmd.identifier, allowed);
      if (mailbox::grantsToUser(*id, change)) {
        auto users = auth::UserStore::open(config->getPath("users_file"),
                                           static_cast<int>(config->getInt("scram_iterations")));
        if (!users.ok()) return reportFailure("acl set: users_file", users.status());
        auto known = (*users)->lookup(id->subject());
        if (known.status().code() == base::Code::kNotFound) {
          return reportFailure("acl set " + cmd.identifier, Status::notFound("no such user"));
        }
        if (!known.ok()) return reportFailure("acl set " + cmd.identifier, known.status());
      }
    }
    identifier = id->canonical;
  } else if (cmd.action != "get") {
    std::fprintf(stderr, "darius: acl: unknown action %s\n", cmd.action.c_str());
    return kExitUsage;
  }

  auto opened = mailbox::Store::open(*config);
  if (!opened.ok()) return reportFailure("acl: cannot open the store", opened.status());
  mailbox::Store& store = **opened;
  if (cmd.action == "get") {
    auto entry = store.list().lookup(*name);
    if (!entry.ok()) return reportFailure("acl get " + cmd.mailbox, entry.status());
    if ((entry->flags & mailbox::MailboxEntry::kDeleted) != 0) {
      return reportFailure("acl get " + cmd.mailbox, Status::notFound("no such mailbox"));
    }
    auto acl = mailbox::Acl::parse(entry->acl);
    if (!acl.ok()) return reportFailure("acl get " + cmd.mailbox + ": damaged ACL", acl.status());
    print(*name, *acl, cmd.json);
    return 0;
  }
  auto acl = store.editAcl(*name, identifier, change);
  if (!acl.ok()) return reportFailure("acl " + cmd.action + " " + cmd.mailbox, acl.status());
  print(*name, *acl, cmd.json);
  return 0;
}

}  // namespace darius::tools
