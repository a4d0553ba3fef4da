#include "pop3d/pop3_service.h"

namespace darius::pop3d {

Pop3Options pop3OptionsFromConfig(const config::Config& config) {
  Pop3Options o;
  o.servername = config::serverName(config);
  o.allow_plaintext_auth = config.getBool("allow_plaintext_auth");
  o.auth_failure_delay = config.getDuration("auth_failure_delay");
  o.login_timeout = config.getDuration("login_timeout");
  return o;
}

Pop3Service::Pop3Service(std::string name, Pop3Options options, auth::UserStore& users,
                         net::Metrics& metrics)
    : name_(std::move(name)), options_(std::move(options)) {
  env_.options = &options_;
  env_.users = &users;
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
