#include "pop3d/pop3_service.h"

#include "lib/io/path.h"

namespace darius::pop3d {

Pop3Options pop3OptionsFromConfig(const config::Config& config) {
  Pop3Options o;
  o.servername = config::serverName(config);
  o.allow_plaintext_auth = config.getBool("allow_plaintext_auth");
  o.auth_failure_delay = config.getDuration("auth_failure_delay");
  o.login_timeout = config.getDuration("login_timeout");
  o.idle_timeout = config.getDuration("idle_timeout");
  // The option is an enum the config has validated, so this cannot fail.
  o.uidl_format =
      parseUidlFormat(config.getString("pop3_uidl_format")).valueOr(UidlFormat::kUidvalidityUid);
  o.lock_dir = io::joinPath(config.getPath("data_dir"), kPop3LockDirName);
  return o;
}

base::Result<std::unique_ptr<Pop3Service>> Pop3Service::create(std::string name,
                                                               const config::Config& config,
                                                               auth::UserStore& users,
                                                               mailbox::Store& store,
                                                               net::Metrics& metrics,
                                                               const auth::Admins* admins) {
  DARIUS_ASSIGN_OR_RETURN(mailbox::Namespace ns, mailbox::Namespace::fromConfig(config));
  auto s = std::make_unique<Pop3Service>(std::move(name), pop3OptionsFromConfig(config), users,
                                         &store, std::move(ns), metrics);
  s->env_.admins = admins;
  return s;
}

Pop3Service::Pop3Service(std::string name, Pop3Options options, auth::UserStore& users,
                         mailbox::Store* store, std::optional<mailbox::Namespace> ns,
                         net::Metrics& metrics)
    : name_(std::move(name)), options_(std::move(options)), ns_(std::move(ns)) {
  env_.options = &options_;
  env_.users = &users;
  env_.store = store;
  env_.ns = ns_ ? &*ns_ : nullptr;
  env_.service = name_;
  for (size_t i = 0; i < kVerbCount; ++i) {
    env_.commands[i] = &metrics.counter(
        "darius_commands_total", "Protocol commands received, per service and command.",
        {{"service", name_}, {"command", std::string(verbName(static_cast<Verb>(i)))}});
  }
}

asio::awaitable<void> Pop3Service::serve(std::shared_ptr<net::Connection> conn) {
  Session session(env_, std::move(conn), next_session_.fetch_add(1, std::memory_order_relaxed));
  co_await session.run();
}

}  // namespace darius::pop3d
