#include "lmtpd/lmtp_service.h"

#include "lib/log/log.h"
#include "lib/net/thread_priority.h"

namespace darius::lmtpd {

LmtpOptions lmtpOptionsFromConfig(const config::Config& config) {
  LmtpOptions o;
  o.servername = config::serverName(config);
  o.max_message_size = config.getSize("max_literal_size");
  // RFC 5321 §4.5.3.2.7 asks servers to wait at least 5 minutes for a command.
  o.timeout = config.getDuration("idle_timeout");
  o.max_recipients = static_cast<size_t>(config.getInt("lmtp_max_recipients"));
  o.max_data_line = static_cast<size_t>(config.getSize("lmtp_max_line_length"));
  o.delivery_threads = static_cast<unsigned>(config.getInt("lmtp_delivery_threads"));
  o.delivery_nice = static_cast<int>(config.getInt("lmtp_delivery_nice"));
  o.strict_rcpt = config.getBool("lmtp_strict_rcpt");
  o.over_quota_permanent = config.getBool("lmtp_over_quota_perm_failure");
  return o;
}

base::Result<std::unique_ptr<LmtpService>> LmtpService::create(std::string name,
                                                               const config::Config& config,
                                                               auth::UserStore& users,
                                                               mailbox::Store& store,
                                                               net::Metrics& metrics) {
  DARIUS_ASSIGN_OR_RETURN(mailbox::Namespace ns, mailbox::Namespace::fromConfig(config));
  DARIUS_ASSIGN_OR_RETURN(auto duplicates, mailbox::DuplicateDb::open(config));
  return std::make_unique<LmtpService>(std::move(name), lmtpOptionsFromConfig(config), users,
                                       store, std::move(ns), std::move(duplicates), metrics);
}

LmtpService::LmtpService(std::string name, LmtpOptions options, auth::UserStore& users,
                         mailbox::Store& store, mailbox::Namespace ns,
                         std::unique_ptr<mailbox::DuplicateDb> duplicates, net::Metrics& metrics)
    : name_(std::move(name)),
      options_(std::move(options)),
      duplicates_(std::move(duplicates)),
      deliverer_(store, std::move(ns), duplicates_.get()),
      pool_(std::max(1u, options_.delivery_threads)) {
  env_.options = &options_;
  env_.users = &users;
  env_.deliverer = &deliverer_;
  env_.delivery_pool = &pool_;
  // Interactive work first (issue 23): sessions run on the host's threads at the process's
  // own priority; deliveries are the work that can wait.
  base::Status niced = net::lowerPoolPriority(pool_, std::max(1u, options_.delivery_threads),
                                              options_.delivery_nice);
  if (!niced.isOk()) {
    log::warning("lmtp: delivery threads keep their priority: {}", niced.toString());
  }
  env_.service = name_;
  for (size_t i = 0; i < kVerbCount; ++i) {
    env_.commands[i] = &metrics.counter(
        "darius_commands_total", "Protocol commands received, per service and command.",
        {{"service", name_}, {"command", std::string(verbName(static_cast<Verb>(i)))}});
  }
  static constexpr const char* kOutcomes[] = {"delivered", "duplicate", "no_mailbox",
                                              "over_quota", "temporary_failure"};
  static_assert(std::size(kOutcomes) == std::tuple_size_v<decltype(env_.deliveries)>);
  for (size_t i = 0; i < std::size(kOutcomes); ++i) {
    env_.deliveries[i] = &metrics.counter(
        "darius_lmtp_deliveries_total", "Per-recipient outcomes of LMTP deliveries.",
        {{"service", name_}, {"outcome", kOutcomes[i]}});
  }
}

LmtpService::~LmtpService() {
  // Deliveries in flight finish before the Deliverer and the DuplicateDb go away.
  pool_.join();
}

asio::awaitable<void> LmtpService::serve(std::shared_ptr<net::Connection> conn) {
  Session session(env_, std::move(conn), next_session_.fetch_add(1, std::memory_order_relaxed));
  co_await session.run();
}

}  // namespace darius::lmtpd
