#include "lmtpd/lmtp_service.h"

namespace darius::lmtpd {

LmtpOptions lmtpOptionsFromConfig(const config::Config& config) {
  LmtpOptions o;
  o.servername = config::serverName(config);
  o.max_message_size = config.getSize("max_literal_size");
  // RFC 5321 §4.5.3.2.7 asks servers to wait at least 5 minutes for a command.
  o.timeout = config.getDuration("idle_timeout");
  return o;
}

LmtpService::LmtpService(std::string name, LmtpOptions options, auth::UserStore& users,
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

asio::awaitable<void> LmtpService::serve(std::shared_ptr<net::Connection> conn) {
  Session session(env_, std::move(conn), next_session_.fetch_add(1, std::memory_order_relaxed));
  co_await session.run();
}

}  // namespace darius::lmtpd
