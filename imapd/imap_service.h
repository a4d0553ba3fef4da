// ImapService: the imap (port 143, STARTTLS) and imaps (port 993, implicit TLS) services. It
// reads its settings from the Config once, owns the command table and the per-command
// metrics, and runs one Session per admitted connection.
//
// Ownership: owned by the composition root (server/); borrows the UserStore and the Metrics
// registry, which must outlive it. Thread-safety: serve() runs concurrently for many
// connections; everything it touches is immutable after construction, except the atomic
// counters.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "auth/user_store.h"
#include "imapd/command_table.h"
#include "imapd/change_hub.h"
#include "imapd/session.h"
#include "imapd/sort/sort_key_cache.h"
#include "mailbox/namespace.h"
#include "mailbox/store.h"
#include "lib/config/config.h"
#include "lib/net/metrics.h"
#include "lib/net/service.h"

namespace darius::imapd {

class ImapService : public net::Service {
 public:
  // `name` is "imap" or "imaps" (logs and metrics labels). `tls_available`: a TLS context
  // exists, so STARTTLS can be offered on plaintext connections.
  // `store` may be null (unit tests of the pre-login state): then no mailbox command works.
  ImapService(std::string name, const config::Config& config, auth::UserStore& users,
              mailbox::Store* store,
              net::Metrics& metrics, bool tls_available, const auth::Admins* admins = nullptr);

  std::string_view name() const override { return name_; }
  asio::awaitable<void> serve(std::shared_ptr<net::Connection> conn) override;
  std::string refusal() const override { return "* BYE [UNAVAILABLE] Too many connections\r\n"; }
  net::ReaderLimits limits() const override { return limits_; }
  std::chrono::milliseconds initialTimeout() const override { return settings_.login_timeout; }

  const SessionSettings& settings() const { return settings_; }
  const CommandTable& commands() const { return commands_; }

 private:
  std::string name_;
  SessionSettings settings_;
  net::ReaderLimits limits_;
  CommandTable commands_;
  auth::UserStore& users_;
  const auth::Admins* admins_;
  mailbox::Store* store_;
  std::unique_ptr<mailbox::Namespace> ns_;
  std::unique_ptr<ChangeHub> hub_;
  std::unique_ptr<sort::SortKeyCache> sort_keys_;  // null when sort_key_cache is 0
  std::vector<std::atomic<uint64_t>*> command_counters_;  // parallel to commands_.all()
  std::atomic<uint64_t>* unknown_counter_;
  std::atomic<uint64_t> next_session_id_{1};
};

}  // namespace darius::imapd
