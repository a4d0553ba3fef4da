#include "server/server.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "auth/admins.h"
#include "auth/user_store.h"
#include "lib/config/config.h"
#include "lib/log/log.h"
#include "lib/net/server_host.h"
#include "lib/net/tls.h"
#include "lmtpd/lmtp_service.h"
#include "mailbox/duplicate_db.h"
#include "mailbox/store.h"
#include "server/expire_scheduler.h"
#include "server/search_indexer.h"
#include "server/metrics_service.h"
#include "server/run_files.h"
#include "server/services.h"

namespace darius::server {

using base::Status;

namespace {

int fail(int code, const std::string& what) {
  // Before the log is open this is the operator's only channel; after, it goes to both.
  std::fprintf(stderr, "dariusd: %s\n", what.c_str());
  return code;
}

}  // namespace

int runServer(const std::string& config_path) {
  auto cfg = config::Config::load(config_path);
  if (!cfg.ok()) return fail(kExitConfig, cfg.status().message());
  const config::Config& config = *cfg;

  auto level = log::parseLevel(config.getString("log_level"));
  Status ls = log::openLog(config.getPath("log_file"), level.ok() ? *level : log::Level::kInfo,
                           "dariusd");
  if (!ls.isOk()) return fail(kExitConfig, "log_file: " + ls.toString());

  RunFiles run_files(config.getPath("run_dir"));
  if (Status s = run_files.lock(); !s.isOk()) return fail(kExitSoftware, s.toString());

  auto users = auth::UserStore::open(config.getPath("users_file"),
                                     static_cast<int>(config.getInt("scram_iterations")));
  if (!users.ok()) return fail(kExitSoftware, "users_file: " + users.status().toString());
  (*users)->enableCredentialCache(
      std::chrono::duration_cast<std::chrono::seconds>(config.getDuration("auth_cache_ttl")),
      static_cast<size_t>(config.getInt("auth_cache_size")));

  auto admins = auth::Admins::fromConfig(config);
  if (!admins.ok()) return fail(kExitConfig, admins.status().message());

  // The store opens before any listener: its open finishes whatever a crash interrupted.
  auto store = mailbox::Store::open(config, nullptr, /*serve=*/true);
  if (!store.ok()) return fail(kExitSoftware, "mail store: " + store.status().toString());
  for (const std::string& line : (*store)->recovery().finished) {
    log::notice("store recovery: finished {}", line);
  }
  auto expire_at = parseExpireAt(config.getString("expire_at"));
  if (!expire_at.ok()) return fail(kExitConfig, expire_at.status().message());

  const std::vector<std::string> names = config.getList("services");
  bool want_tls = false;
  for (const auto& n : names) want_tls |= isTlsService(n);
  net::TlsContextPtr tls;
  if (!config.getPath("tls_cert_file").empty() || want_tls) {
    auto ctx = net::makeServerTlsContext(net::tlsOptionsFromConfig(config));
    if (!ctx.ok()) return fail(kExitConfig, ctx.status().message());
    tls = *ctx;
  }

  auto threads = config.getInt("worker_threads");
  net::ServerHost host(net::ServerHostOptions{
      .threads = static_cast<unsigned>(threads),
      .blocking_threads = static_cast<unsigned>(config.getInt("blocking_threads")),
      .shutdown_timeout = config.getDuration("shutdown_timeout"),
      .max_connections = static_cast<size_t>(config.getInt("max_connections")),
      .max_connections_per_host = static_cast<size_t>(config.getInt("max_connections_per_host")),
  });

  ServiceDeps deps{config, **users, **store, host.metrics(), tls, *admins};
  std::vector<std::unique_ptr<net::Service>> services;
  std::set<std::string> seen;
  for (const auto& name : names) {
    if (!seen.insert(name).second) continue;
    auto service = makeService(name, deps);
    if (!service.ok()) return fail(kExitConfig, service.status().message());
    const auto addresses = config.getAddresses(name + "_listen");
    if (addresses.empty()) {
      return fail(kExitConfig, "service " + name + " is enabled but " + name +
                                   "_listen names no address");
    }
    for (const auto& a : addresses) {
      Status s = host.addListener(a, **service, tls, isTlsService(name));
      if (!s.isOk()) return fail(kExitSoftware, s.message());
    }
    services.push_back(std::move(*service));
  }

  // After the services (it prunes lmtpd's duplicates.db, and is destroyed before them) and
  // before the host runs any session (it installs the store's expunge observer). Without
  // expire_at there is no nightly run, but an owner past expunge_vol_overflow is still
  // expired at once.
  ExpireSchedulerOptions eo;
  eo.policy = mailbox::ExpirePolicy::fromConfig(config);
  eo.minute_of_day = *expire_at;
  std::vector<mailbox::DuplicateDb*> duplicates;
  for (auto& service : services) {
    if (auto* lmtp = dynamic_cast<lmtpd::LmtpService*>(service.get())) {
      if (lmtp->duplicates() != nullptr) duplicates.push_back(lmtp->duplicates());
    }
  }
  if (!duplicates.empty()) {
    eo.prune_duplicates = [duplicates](int64_t now) -> base::Result<size_t> {
      size_t n = 0;
      for (mailbox::DuplicateDb* d : duplicates) {
        DARIUS_ASSIGN_OR_RETURN(size_t k, d->prune(now));
        n += k;
      }
      return n;
    };
  }
  // The deleted area (delete_mode delayed): its own policy, per owner as for expunged mail.
  const mailbox::ExpirePolicy deleted_policy = mailbox::ExpirePolicy::deletedFromConfig(config);
  mailbox::Store* st = store->get();
  auto expireDeleted = [st, deleted_policy](const std::optional<mailbox::MailboxName>& owner,
                                            int64_t now, bool overflow_only) -> base::Status {
    mailbox::ExpireOptions o;
    o.deleted_policy = deleted_policy;
    o.now = now;
    o.overflow_only = overflow_only;
    DARIUS_ASSIGN_OR_RETURN(std::vector<mailbox::ExpireOutcome> done, st->expireDeleted(owner, o));
    for (const mailbox::ExpireOutcome& oc : done) {
      if (oc.removed_messages == 0) continue;
      log::notice("expire: {}: removed {} deleted folders ({} bytes) of {} held", oc.owner,
                  oc.removed_messages, oc.removed_bytes, oc.held_messages);
    }
    return base::Status::ok();
  };
  eo.expire_deleted = [expireDeleted](const std::optional<mailbox::MailboxName>& owner,
                                      int64_t now) { return expireDeleted(owner, now, false); };
  eo.deleted_overflow = [expireDeleted](const mailbox::MailboxName& owner, int64_t now) {
    return expireDeleted(owner, now, true);
  };
  ExpireScheduler expire(**store, std::move(eo));
  // The search indexer (issue 19): after the services, before any session, like the scheduler.
  std::optional<SearchIndexer> indexer;
  if (config.getBool("search_index")) {
    indexer.emplace(**store, config.getDuration("search_index_delay"));
  }

  std::vector<std::pair<std::string, std::string>> bound;
  for (const auto& b : host.boundListeners()) {
    log::notice("{} listening on {}", b.service, b.address);
    bound.emplace_back(b.service, b.address);
  }
  if (Status s = run_files.writeListeners(bound); !s.isOk()) {
    return fail(kExitSoftware, "write listeners file: " + s.toString());
  }
  host.onReload([] {
    if (Status s = log::reopenLog(); !s.isOk()) {
      std::fprintf(stderr, "dariusd: reopen log: %s\n", s.toString().c_str());
    }
  });
  log::notice("dariusd {} ready ({} services, config {})", DARIUS_VERSION, services.size(),
              config.sourcePath());
  int rc = host.run();
  log::notice("dariusd stopped");
  return rc;
}

}  // namespace darius::server
