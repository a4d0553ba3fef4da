// darius: the admin CLI. Every subcommand takes -C CONFIG (default $DARIUS_CONF, then
// /etc/darius.conf) and works beside a running dariusd.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "lib/config/config_docs.h"
#include "lib/config/options.h"
#include "mailbox/expire_policy_db.h"
#include "tools/acl_command.h"
#include "tools/cli_common.h"
#include "tools/db_command.h"
#include "tools/init_command.h"
#include "tools/expire_command.h"
#include "tools/undelete_command.h"
#include "tools/quota_command.h"
#include "tools/mailbox_command.h"
#include "tools/reconstruct_command.h"
#include "tools/search_command.h"
#include "tools/user_command.h"

using namespace darius;

namespace {

int configCommand(const std::string& action, const std::string& path) {
  if (action == "docs") {
    std::fputs(config::configMarkdown().c_str(), stdout);
    return 0;
  }
  auto cfg = tools::loadConfig(path);
  if (!cfg.ok()) {
    std::fprintf(stderr, "darius: %s\n", cfg.status().message().c_str());
    return tools::kExitConfig;
  }
  if (action == "check") {
    std::printf("%s: OK\n", cfg->sourcePath().c_str());
    return 0;
  }
  for (const auto& opt : config::allOptions()) {
    std::printf("%s: %s\n", std::string(opt.name).c_str(), cfg->getText(opt.name).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"darius: administer a Darius mail store"};
  app.set_version_flag("--version", std::string("darius ") + DARIUS_VERSION);
  app.require_subcommand(1);
  std::string config_path = "/etc/darius.conf";
  app.add_option("-C,--config", config_path, "config file")->envname("DARIUS_CONF");

  tools::InitOptions init;
  auto* init_cmd = app.add_subcommand("init", "create a ready instance in DIR");
  init_cmd->add_option("DIR", init.dir, "instance directory")->required();
  init_cmd->add_option("--port-base", init.port_base,
                       "ports are N+143 (IMAP), N+993, N+110, N+995, N+24, N+4190, N+9100");
  init_cmd->add_flag("--ephemeral-ports", init.ephemeral_ports,
                     "listen on port 0 everywhere (tests); real ports go to run/listeners");
  init_cmd->add_option("--user", init.user, "first user as NAME:PASSWORD (default: demo, random)");
  init_cmd->add_option("--hostname", init.hostname, "server name and certificate name");

  tools::UserCommand user;
  auto* user_cmd = app.add_subcommand("user", "manage users");
  user_cmd->require_subcommand(1);
  user_cmd->fallthrough();
  for (const char* action : {"add", "passwd", "del", "list", "check"}) {
    auto* sub = user_cmd->add_subcommand(action, std::string(action) + " a user");
    sub->fallthrough();
    if (std::string(action) != "list") sub->add_option("NAME", user.name)->required();
    if (std::string(action) == "add" || std::string(action) == "passwd" ||
        std::string(action) == "check") {
      sub->add_option("--password", user.password,
                      "the password (default: read from standard input)");
    }
    sub->callback([&user, action] { user.action = action; });
  }

  std::string config_action;
  auto* config_cmd = app.add_subcommand("config", "show, check or document the configuration");
  config_cmd->require_subcommand(1);
  config_cmd->fallthrough();
  for (const char* action : {"docs", "check", "show"}) {
    config_cmd->add_subcommand(action, std::string(action) == "docs"
                                           ? "print docs/config.md"
                                           : std::string(action) + " the config file")
        ->fallthrough()
        ->callback([&config_action, action] { config_action = action; });
  }
  tools::DbCommand dbc;
  auto* db_cmd = app.add_subcommand("db", "dump, load, check, convert or repack a database");
  db_cmd->require_subcommand(1);
  db_cmd->fallthrough();
  db_cmd->add_option("-b,--backend", dbc.backend, "skiplist (default), berkeley or flat");
  auto* batch_opt =
      db_cmd->add_option("--batch", dbc.batch, "records per transaction when writing");
  struct DbAction {
    const char* name;
    const char* help;
  };
  for (DbAction a : {DbAction{"dump", "write every record as text (to -o FILE or stdout)"},
                     DbAction{"load", "load a dump (from -i FILE or stdin) into a new database"},
                     DbAction{"check", "verify the on-disk structure; exit 1 when damaged"},
                     DbAction{"checksum", "count records and print their sha256"},
                     DbAction{"convert", "copy into another backend and verify checksums"},
                     DbAction{"repack", "rewrite without dead records"}}) {
    auto* sub = db_cmd->add_subcommand(a.name, a.help);
    sub->fallthrough();
    sub->add_option("PATH", dbc.path, "the database")->required();
    std::string name = a.name;
    if (name == "dump") sub->add_option("-o,--output", dbc.file, "output file (default stdout)");
    if (name == "load") sub->add_option("-i,--input", dbc.file, "dump file (default stdin)");
    if (name == "convert") {
      sub->add_option("DEST", dbc.to_path, "the new database")->required();
      sub->add_option("--to", dbc.to_backend, "backend of DEST")->required();
    }
    sub->callback([&dbc, name] { dbc.action = name; });
  }

  tools::ReconstructCommand rec;
  auto* rec_cmd = app.add_subcommand(
      "reconstruct", "rebuild the mailbox list, indexes and caches from the partitions");
  rec_cmd->fallthrough();
  auto* rec_mailbox = rec_cmd->add_option("MAILBOX", rec.mailbox,
                                          "internal name, e.g. user/alice/Sent or shared/news");
  auto* rec_user = rec_cmd->add_option(
      "-u,--user", rec.user, "a user's INBOX and everything below it (alice, alice@example.com)");
  auto* rec_all = rec_cmd->add_flag("--all", rec.all, "every mailbox on every partition");
  rec_mailbox->excludes(rec_user)->excludes(rec_all);
  rec_user->excludes(rec_all);
  rec_cmd->add_flag("-n,--dry-run", rec.dry_run, "report only; change nothing");
  rec_cmd->add_flag("-r,--recursive", rec.recursive, "MAILBOX and its sub-mailboxes");
  rec_cmd->add_flag("--adopt", rec.adopt,
                    "make directories of message files without a darius.header into mailboxes "
                    "(new unique id and UIDVALIDITY)");
  rec_cmd->footer(tools::reconstructHelpFooter());

  tools::MailboxCommand mbc;
  auto* mb_cmd =
      app.add_subcommand("mailbox", "list, show, create, delete, rename or append to mailboxes");
  mb_cmd->require_subcommand(1);
  mb_cmd->fallthrough();
  {
    auto* sub = mb_cmd->add_subcommand("list", "name, partition, unique id, messages, UIDVALIDITY");
    sub->add_option("--prefix", mbc.prefix, "a mailbox and its subtree, or DOMAIN! for a domain");
    sub = mb_cmd->add_subcommand(
        "show", "the index header and every message: UID, flags, size, GUID, date");
    sub->add_option("MAILBOX", mbc.name)->required();
    sub->add_flag("--expunged", mbc.expunged, "also the expunged messages still held");
    sub = mb_cmd->add_subcommand("create", "create a mailbox (parents are not created)");
    sub->add_option("MAILBOX", mbc.name)->required();
    sub->add_option("--partition", mbc.partition, "default: the parent's, else default_partition");
    sub->add_option("--acl", mbc.acl, "\"ID RIGHTS ...\" (default: the owner, all rights)");
    sub->add_option("--special-use", mbc.special_use, "RFC 6154 attribute, e.g. \\Sent");
    sub = mb_cmd->add_subcommand("delete", "move a mailbox to the deleted area");
    sub->add_option("MAILBOX", mbc.name)->required();
    sub = mb_cmd->add_subcommand("rename", "rename a mailbox with its sub-mailboxes");
    sub->add_option("MAILBOX", mbc.name)->required();
    sub->add_option("NEWNAME", mbc.to)->required();
    sub = mb_cmd->add_subcommand("append", "store message files (LF line ends become CRLF)");
    sub->add_option("MAILBOX", mbc.name)->required();
    sub->add_option("FILE", mbc.files, "message files; - for standard input")->required();
    sub->add_option("--flag", mbc.flags, "\\Seen, \\Flagged, ... or a keyword (repeatable)")
        ->allow_extra_args(false);
    sub->add_option("--date", mbc.date, "internal date, seconds since the epoch (default: now)");
  }
  for (auto* sub : mb_cmd->get_subcommands({})) {
    sub->fallthrough();
    std::string action = sub->get_name();
    sub->callback([&mbc, action] { mbc.action = action; });
  }
  for (auto* sub : {init_cmd}) sub->fallthrough();

  tools::AclCommand aclc;
  auto* acl_cmd = app.add_subcommand("acl", "show or change a mailbox's access control list");
  acl_cmd->require_subcommand(1);
  acl_cmd->fallthrough();
  {
    auto* sub = acl_cmd->add_subcommand("get", "the ACL entries: identifier, rights");
    sub->add_option("MAILBOX", aclc.mailbox, "internal name, e.g. user/alice/Sent")->required();
    sub = acl_cmd->add_subcommand("set", "set (RIGHTS), add (+RIGHTS) or remove (-- -RIGHTS)");
    sub->add_option("MAILBOX", aclc.mailbox, "internal name, e.g. user/alice/Sent")->required();
    sub->add_option("ID", aclc.identifier, "user, anyone, anonymous; -ID: negative rights")
        ->required();
    sub->add_option("RIGHTS", aclc.rights, "letters of lrswipkxtean (c = k, d = xte)")
        ->required();
    sub = acl_cmd->add_subcommand("delete", "remove an identifier's entry");
    sub->add_option("MAILBOX", aclc.mailbox, "internal name, e.g. user/alice/Sent")->required();
    sub->add_option("ID", aclc.identifier, "user, anyone, anonymous, -ID")->required();
  }
  for (auto* sub : acl_cmd->get_subcommands({})) {
    sub->fallthrough();
    sub->add_flag("--json", aclc.json, "print JSON");
    std::string action = sub->get_name();
    sub->callback([&aclc, action] { aclc.action = action; });
  }

  tools::QuotaCommand qc;
  auto* quota_cmd = app.add_subcommand("quota", "show, set and recount quota roots (RFC 9208)");
  quota_cmd->require_subcommand(1);
  quota_cmd->fallthrough();
  {
    auto* sub = quota_cmd->add_subcommand("get", "a root's usage and limits");
    sub->add_option("ROOT", qc.root, "internal name, e.g. user/alice")->required();
    sub = quota_cmd->add_subcommand("set", "change limits: STORAGE=KiB MESSAGE=n MAILBOX=n|none");
    sub->add_option("ROOT", qc.root, "internal name, e.g. user/alice")->required();
    sub->add_option("LIMITS", qc.limits, "RESOURCE=LIMIT or RESOURCE=none");
    sub = quota_cmd->add_subcommand("list", "every root, with usage and limits");
    sub->add_option("--prefix", qc.prefix, "only roots whose name starts with this");
    sub = quota_cmd->add_subcommand("recalc", "recount usage from the mailboxes and fix it");
    sub->add_flag("-n,--dry-run", qc.dry_run, "report only");
    sub->add_option("--user", qc.user, "the user's roots");
    sub->add_flag("--all", qc.all, "every root");
  }
  for (auto* sub : quota_cmd->get_subcommands({})) {
    sub->fallthrough();
    sub->add_flag("--json", qc.json, "print JSON");
    std::string action = sub->get_name();
    sub->callback([&qc, action] { qc.action = action; });
  }

  tools::ExpireCommand exc;
  auto* expire_cmd = app.add_subcommand(
      "expire", "remove expunged messages for good, by the expunge_vol_*/expunge_timeout policy");
  expire_cmd->fallthrough();
  expire_cmd->add_flag("-n,--dry-run", exc.dry_run, "report what would go, remove nothing");
  expire_cmd->add_option("--user", exc.user, "one user's mailboxes");
  expire_cmd->add_flag("--all", exc.all, "every owner");
  expire_cmd->add_flag("--now", exc.everything, "remove every expunged message, whatever the policy");
  expire_cmd->add_option("--at", exc.at, "apply the policy as if it were TIME (epoch or UTC date)");
  expire_cmd->add_flag("--json", exc.json, "print JSON");
  tools::ExpirePolicyCommand epc;
  epc.values.resize(std::size(mailbox::kExpireOverrideFields));
  auto* policy_cmd = expire_cmd->add_subcommand(
      "policy", "show, set or clear an owner's overrides of the expire policy");
  policy_cmd->require_subcommand(1);
  policy_cmd->fallthrough();
  {
    auto* sub = policy_cmd->add_subcommand("show", "an owner's effective policy, or every override");
    sub = policy_cmd->add_subcommand("set", "override settings for an owner (`default` drops one)");
    for (size_t i = 0; i < std::size(mailbox::kExpireOverrideFields); ++i) {
      const auto& f = mailbox::kExpireOverrideFields[i];
      std::string flag = "--" + std::string(f.name);
      for (char& c : flag) c = c == '_' ? '-' : c;
      sub->add_option_function<std::string>(
          flag, [&epc, i](const std::string& v) { epc.values[i] = v; },
          f.is_timeout ? "DURATION (28d) or default" : "SIZE (50M) or default");
    }
    policy_cmd->add_subcommand("clear", "drop every override of an owner");
  }
  for (auto* sub : policy_cmd->get_subcommands({})) {
    sub->fallthrough();
    sub->add_option("--user", epc.user, "the owner: a user");
    sub->add_option("--mailbox", epc.mailbox, "the owner: a shared mailbox, e.g. shared/news");
    sub->add_flag("--json", epc.json, "print JSON");
    std::string action = sub->get_name();
    sub->callback([&epc, action] { epc.action = action; });
  }

  tools::UnexpungeCommand unc;
  auto* unexpunge_cmd = app.add_subcommand(
      "unexpunge", "copy expunged messages back into a mailbox (Cyrus's unexpunge)");
  unexpunge_cmd->fallthrough();
  unexpunge_cmd->add_option("MAILBOX", unc.mailbox, "internal name, e.g. user/alice/Sent")
      ->required();
  unexpunge_cmd->add_option("--uid", unc.uids, "an expunged message's UID (repeatable)");
  unexpunge_cmd->add_option("--since", unc.since, "those expunged at or after TIME");
  unexpunge_cmd->add_flag("--all", unc.all, "every expunged message still held");
  unexpunge_cmd->add_option("--into", unc.into, "restore into this mailbox (default: MAILBOX)");
  unexpunge_cmd->add_flag("--json", unc.json, "print JSON");

  tools::UndeleteCommand udc;
  auto* undelete_cmd = app.add_subcommand(
      "undelete", "list the folders DELETE kept, or bring one back (keeps its UIDVALIDITY)");
  undelete_cmd->fallthrough();
  undelete_cmd->add_option("DELETED-NAME", udc.deleted,
                           "its entry (see --list) or user/alice/Old-YYYYMMDD-HH:MM:SS");
  undelete_cmd->add_option("NEW-NAME", udc.new_name, "internal name (default: the old name)");
  undelete_cmd->add_flag("--list", udc.list, "list the deleted folders, oldest first");
  undelete_cmd->add_option("--user", udc.user, "with --list: one user's");
  undelete_cmd->add_flag("--json", udc.json, "print JSON");

  tools::SearchCommand sc;
  auto* search_cmd = app.add_subcommand(
      "search", "build and check the persistent search index (Cyrus's squatter)");
  search_cmd->require_subcommand(1);
  search_cmd->fallthrough();
  {
    auto* sub = search_cmd->add_subcommand("index", "index the messages not yet indexed");
    sub->add_flag("--rebuild", sc.rebuild, "remove each index first and index everything");
    sub = search_cmd->add_subcommand("check", "compare each index with the messages");
    sub->add_flag("--json", sc.json, "print JSON");
  }
  for (auto* sub : search_cmd->get_subcommands({})) {
    sub->fallthrough();
    auto* mailbox_opt =
        sub->add_option("MAILBOX", sc.mailbox, "internal name, e.g. user/alice/Sent");
    auto* user_opt = sub->add_option("-u,--user", sc.user, "a user's INBOX and everything below");
    auto* all_opt = sub->add_flag("--all", sc.all, "every mailbox");
    mailbox_opt->excludes(user_opt)->excludes(all_opt);
    user_opt->excludes(all_opt);
    sub->footer(tools::searchHelpFooter());
    std::string action = sub->get_name();
    sub->callback([&sc, action] { sc.action = action; });
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : tools::kExitUsage;
  }
  if (init_cmd->parsed()) return tools::runInit(init);
  if (user_cmd->parsed()) return tools::runUserCommand(config_path, user);
  if (config_cmd->parsed()) return configCommand(config_action, config_path);
  if (rec_cmd->parsed()) return tools::runReconstruct(config_path, rec);
  if (mb_cmd->parsed()) return tools::runMailboxCommand(config_path, mbc);
  if (quota_cmd->parsed()) return tools::runQuotaCommand(config_path, qc);
  if (acl_cmd->parsed()) return tools::runAclCommand(config_path, aclc);
  if (policy_cmd->parsed()) return tools::runExpirePolicyCommand(config_path, epc);
  if (expire_cmd->parsed()) return tools::runExpireCommand(config_path, exc);
  if (unexpunge_cmd->parsed()) return tools::runUnexpungeCommand(config_path, unc);
  if (search_cmd->parsed()) return tools::runSearchCommand(config_path, sc);
  if (undelete_cmd->parsed()) return tools::runUndeleteCommand(config_path, udc);
  if (db_cmd->parsed()) {
    dbc.batch_set = batch_opt->count() > 0;
    return tools::runDbCommand(dbc);
  }
  return tools::kExitUsage;
}
