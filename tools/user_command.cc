#include "tools/user_command.h"

#include <cstdio>

#include "auth/user_store.h"
#include "db/db.h"
#include "lib/io/path.h"
#include "mailbox/namespace.h"
#include "mailbox/seen_db.h"
#include "mailbox/store.h"
#include "tools/cli_common.h"

namespace darius::tools {

using base::Status;

namespace {

// The user's \Seen of other users' and shared mailboxes (seen.db, docs/formats/seen.md) goes
// with the account, so a new account of the same name does not start out having read what
// the old one read. A name that cannot own mailboxes has no states.
Status removeSeenStates(const config::Config& config, std::string_view name) {
  DARIUS_ASSIGN_OR_RETURN(mailbox::Namespace ns, mailbox::Namespace::fromConfig(config));
  auto user = ns.parseUser(name);
  if (!user.ok()) return Status::ok();
  DARIUS_ASSIGN_OR_RETURN(db::Backend backend,
                          db::parseBackend(config.getString("seen_db_backend")));
  DARIUS_ASSIGN_OR_RETURN(
      auto seen,
      mailbox::SeenDb::open(io::joinPath(config.getPath("data_dir"), mailbox::kSeenDbName),
                            backend));
  return seen->removeUser(user->userId());
}

// The folders DELETE kept of the account go with it too: the deleted area is owned by name,
// so a new account of the same name would otherwise see and undelete them. (Mailboxes still
// listed stay: an administrator deletes those, and undeletes from the area before this.)
base::Result<size_t> removeDeletedFolders(const config::Config& config, std::string_view name) {
  DARIUS_ASSIGN_OR_RETURN(mailbox::Namespace ns, mailbox::Namespace::fromConfig(config));
  auto user = ns.parseUser(name);
  if (!user.ok()) return size_t{0};
  DARIUS_ASSIGN_OR_RETURN(mailbox::MailboxName inbox, ns.inboxOf(*user));
  DARIUS_ASSIGN_OR_RETURN(auto store, mailbox::Store::open(config));
  DARIUS_ASSIGN_OR_RETURN(std::vector<mailbox::DeletedMailbox> kept, store->listDeleted(inbox));
  size_t n = 0;
  for (const mailbox::DeletedMailbox& d : kept) {
    auto gone = store->purgeDeleted(d);
    if (!gone.ok() && gone.status().code() != base::Code::kNotFound) return gone.status();
    n += gone.ok() ? 1 : 0;
  }
  return n;
}

}  // namespace

int runUserCommand(const std::string& config_path, const UserCommand& cmd) {
  auto config = loadConfig(config_path);
  if (!config.ok()) {
    std::fprintf(stderr, "darius: %s\n", config.status().message().c_str());
    return kExitConfig;
  }
  auto store = auth::UserStore::open(config->getPath("users_file"),
                                     static_cast<int>(config->getInt("scram_iterations")));
  if (!store.ok()) return reportFailure("user", store.status());
  auth::UserStore& users = **store;

  if (cmd.action == "list") {
    auto names = users.list();
    if (!names.ok()) return reportFailure("user list", names.status());
    for (const auto& n : *names) std::printf("%s\n", n.c_str());
    return 0;
  }
  if (cmd.action == "del") {
    Status s = users.remove(cmd.name);
    if (!s.isOk()) return reportFailure("user del " + cmd.name, s);
    s = removeSeenStates(*config, cmd.name);
    if (!s.isOk()) return reportFailure("user del " + cmd.name + ": seen states", s);
    auto folders = removeDeletedFolders(*config, cmd.name);
    if (!folders.ok()) {
      return reportFailure("user del " + cmd.name + ": deleted folders", folders.status());
    }
    std::printf("deleted user %s\n", cmd.name.c_str());
    if (*folders > 0) std::printf("removed %zu deleted folders of %s\n", *folders, cmd.name.c_str());
    return 0;
  }
  std::string password;
  if (cmd.password) {
    password = *cmd.password;
  } else {
    auto p = readPassword(/*confirm=*/cmd.action != "check");
    if (!p.ok()) return reportFailure("user " + cmd.action, p.status());
    password = *p;
  }
  if (cmd.action == "add") {
    Status s = users.add(cmd.name, password);
    if (!s.isOk()) return reportFailure("user add " + cmd.name, s);
    std::printf("added user %s\n", cmd.name.c_str());
    return 0;
  }
  if (cmd.action == "passwd") {
    Status s = users.setPassword(cmd.name, password);
    if (!s.isOk()) return reportFailure("user passwd " + cmd.name, s);
    std::printf("changed the password of %s\n", cmd.name.c_str());
    return 0;
  }
  if (cmd.action == "check") {
    auto ok = users.checkPassword(cmd.name, password);
    if (!ok.ok()) return reportFailure("user check " + cmd.name, ok.status());
    std::printf("%s\n", *ok ? "authentication succeeded" : "authentication failed");
    return *ok ? 0 : kExitFailed;
  }
  std::fprintf(stderr, "darius: user: unknown action %s\n", cmd.action.c_str());
  return kExitUsage;
}

}  // namespace darius::tools
