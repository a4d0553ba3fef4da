#include "imapd/imap_service.h"

#include <algorithm>
#include <thread>
#include <unistd.h>

#include "lib/log/log.h"

namespace darius::imapd {

namespace {

std::string hostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

constexpr std::string_view kCommandsMetric = "darius_commands_total";
constexpr std::string_view kCommandsHelp = "Protocol commands received, per service and command.";

}  // namespace

ImapService::ImapService(std::string name, const config::Config& config, auth::UserStore& users,
                         mailbox::Store* store, net::Metrics& metrics, bool tls_available,
                         const auth::Admins* admins)
    : name_(std::move(name)),
      commands_(CommandTable::standard()),
      users_(users),
      admins_(admins),
      store_(store) {
  auto ns = mailbox::Namespace::fromConfig(config);
  if (ns.ok()) ns_ = std::make_unique<mailbox::Namespace>(std::move(*ns));
  if (store_ != nullptr) hub_ = std::make_unique<ChangeHub>(*store_);
  if (store_ != nullptr && config.getSize("sort_key_cache") > 0) {
    sort_keys_ = std::make_unique<sort::SortKeyCache>(static_cast<size_t>(config.getSize("sort_key_cache")));
  }
  settings_.servername = config.getString("servername");
  if (settings_.servername.empty()) settings_.servername = hostName();
  settings_.allow_plaintext_auth = config.getBool("allow_plaintext_auth");
  settings_.starttls_available = tls_available;
  settings_.max_line_length = config.getSize("max_line_length");
  settings_.max_literal_size = config.getSize("max_literal_size");
  settings_.login_timeout = config.getDuration("login_timeout");
  settings_.idle_timeout = config.getDuration("idle_timeout");
  settings_.auth_failure_delay = config.getDuration("auth_failure_delay");
  settings_.max_append_size = config.getSize("max_literal_size");
  settings_.quota_warn_percent = static_cast<int>(config.getInt("quota_warn_percent"));
  settings_.search_index = config.getBool("search_index");
  settings_.search_index_catch_up =
      static_cast<size_t>(std::max<int64_t>(0, config.getInt("search_index_catch_up")));
  settings_.max_search_contexts = static_cast<size_t>(config.getInt("search_contexts"));
  settings_.search_threads = std::clamp<size_t>(static_cast<size_t>(config.getInt("search_threads")),
                                                1, std::max(1u, std::thread::hardware_concurrency()));
  limits_.max_line = static_cast<size_t>(settings_.max_line_length);
  limits_.max_literal = settings_.max_literal_size;

  for (const CommandSpec& spec : commands_.all()) {
    command_counters_.push_back(&metrics.counter(
        kCommandsMetric, kCommandsHelp, {{"service", name_}, {"command", std::string(spec.name)}}));
  }
  unknown_counter_ = &metrics.counter(kCommandsMetric, kCommandsHelp,
                                      {{"service", name_}, {"command", "unknown"}});
}

asio::awaitable<void> ImapService::serve(std::shared_ptr<net::Connection> conn) {
  SessionEnv env;
  env.settings = &settings_;
  env.commands = &commands_;
  env.users = &users_;
  env.admins = admins_;
  if (ns_ != nullptr) {
    env.store = store_;
    env.ns = ns_.get();
    env.hub = hub_.get();
    env.sort_keys = sort_keys_.get();
  }
  env.command_counters = &command_counters_;
  env.unknown_command_counter = unknown_counter_;
  log::Context ctx{name_, next_session_id_.fetch_add(1, std::memory_order_relaxed),
                   conn->peer().address, ""};
  Session session(std::move(conn), std::move(env), std::move(ctx));
  co_await session.run();
}

}  // namespace darius::imapd
