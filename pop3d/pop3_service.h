// Pop3Service: the net::Service behind the pop3 (STLS available) and pop3s (implicit TLS)
// listeners. It holds what every POP3 session shares — options, the user store, the mail
// store and namespace the maildrops live in, metrics counters — and runs one pop3d::Session
// per admitted connection.
//
// Ownership: the composition root (server/) owns the service; the UserStore, Store and
// Metrics it is given must outlive it. Thread-safety: immutable after construction except the
// atomic session counter, so serve() may run concurrently on any number of threads.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "auth/admins.h"
#include "auth/user_store.h"
#include "lib/config/config.h"
#include "lib/net/metrics.h"
#include "lib/net/service.h"
#include "mailbox/namespace.h"
#include "mailbox/store.h"
#include "pop3d/session.h"

namespace darius::pop3d {

// servername (the host name if unset), allow_plaintext_auth, auth_failure_delay,
// login_timeout, idle_timeout, pop3_uidl_format, and the lock directory in data_dir.
Pop3Options pop3OptionsFromConfig(const config::Config& config);

class Pop3Service : public net::Service {
 public:
  // `name` is "pop3" or "pop3s": the label of this service in logs and metrics. Without a
  // store (unit tests of authentication) a login is answered -ERR [SYS/TEMP].
  Pop3Service(std::string name, Pop3Options options, auth::UserStore& users,
              mailbox::Store* store, std::optional<mailbox::Namespace> ns,
              net::Metrics& metrics);
  static base::Result<std::unique_ptr<Pop3Service>> create(std::string name,
                                                           const config::Config& config,
                                                           auth::UserStore& users,
                                                           mailbox::Store& store,
                                                           net::Metrics& metrics,
                                                           const auth::Admins* admins = nullptr);

  std::string_view name() const override { return name_; }
  asio::awaitable<void> serve(std::shared_ptr<net::Connection> conn) override;
  // RFC 3206: a temporary system condition.
  std::string refusal() const override {
    return "-ERR [SYS/TEMP] Too many connections, try again later\r\n";
  }
  net::ReaderLimits limits() const override {
    return {.max_line = kMaxCommandLine, .max_literal = 0};
  }
  std::chrono::milliseconds initialTimeout() const override { return options_.login_timeout; }

  const Pop3Options& options() const { return options_; }

 private:
  const std::string name_;
  const Pop3Options options_;
  const std::optional<mailbox::Namespace> ns_;
  SessionEnv env_;
  std::atomic<uint64_t> next_session_{1};
};

}  // namespace darius::pop3d
