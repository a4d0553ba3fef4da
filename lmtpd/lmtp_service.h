// LmtpService: the net::Service behind the lmtp listener (a TCP port, normally on loopback,
// or a unix socket). It holds what every LMTP session shares — options, the user store,
// metrics counters — and runs one lmtpd::Session per admitted connection.
//
// Ownership: the composition root (server/) owns the service; the UserStore and Metrics it is
// given must outlive it. Thread-safety: immutable after construction except the atomic
// session counter, so serve() may run concurrently on any number of threads.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "auth/user_store.h"
#include "lib/config/config.h"
#include "lib/net/metrics.h"
#include "lib/net/service.h"
#include "lmtpd/session.h"

namespace darius::lmtpd {

// servername (the host name if unset), max_literal_size as the message size limit, and
// idle_timeout as the per-read timeout. VRFY stays off: no option enables it yet.
LmtpOptions lmtpOptionsFromConfig(const config::Config& config);

class LmtpService : public net::Service {
 public:
  LmtpService(std::string name, LmtpOptions options, auth::UserStore& users, net::Metrics& metrics);

  std::string_view name() const override { return name_; }
  asio::awaitable<void> serve(std::shared_ptr<net::Connection> conn) override;
  // RFC 5321 §3.1: a server that cannot serve answers 421 and closes.
  std::string refusal() const override {
    return "421 4.3.2 " + options_.servername + " Too many connections, try again later\r\n";
  }
  net::ReaderLimits limits() const override {
    return {.max_line = kMaxCommandLine, .max_literal = options_.max_message_size};
  }
  std::chrono::milliseconds initialTimeout() const override { return options_.timeout; }

  const LmtpOptions& options() const { return options_; }

 private:
  const std::string name_;
  const LmtpOptions options_;
  SessionEnv env_;
  std::atomic<uint64_t> next_session_{1};
};

}  // namespace darius::lmtpd
