// LmtpService: the net::Service behind the lmtp listener (a TCP port, normally on loopback,
// or a unix socket). It holds what every LMTP session shares — options, the user store, the
// Deliverer over the mail store, the duplicate database, the delivery threads, metrics
// counters — and runs one lmtpd::Session per admitted connection.
//
// Delivery threads: sessions hand each finished message to a pool of its own (size
// lmtp_delivery_threads), not to the host's small blocking pool: a delivery spends most of its
// time waiting for fsyncs, and concurrent deliveries share them (group commit in the Store and
// the change log) only if enough of them can wait at once. They run at nice
// lmtp_delivery_nice (lib/net/thread_priority.h), so that sessions get the cores first.
//
// Ownership: the composition root (server/) owns the service; the UserStore, Store and
// Metrics it is given must outlive it. It owns the DuplicateDb and the delivery pool, whose
// destructor waits for deliveries in flight. Thread-safety: immutable after construction
// except the atomic session counter, so serve() may run concurrently on any number of threads.
#pragma once

#include <asio.hpp>
#include <asio/thread_pool.hpp>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "auth/user_store.h"
#include "lib/config/config.h"
#include "lib/net/metrics.h"
#include "lib/net/service.h"
#include "lmtpd/delivery.h"
#include "lmtpd/session.h"
#include "mailbox/duplicate_db.h"
#include "mailbox/namespace.h"
#include "mailbox/store.h"

namespace darius::lmtpd {

// servername (the host name if unset), max_literal_size as the message size limit,
// idle_timeout as the per-read timeout, lmtp_max_recipients, lmtp_max_line_length,
// lmtp_delivery_threads, lmtp_strict_rcpt. VRFY stays off: no option enables it yet.
LmtpOptions lmtpOptionsFromConfig(const config::Config& config);

class LmtpService : public net::Service {
 public:
  // `duplicates` may be null (no suppression).
  LmtpService(std::string name, LmtpOptions options, auth::UserStore& users,
              mailbox::Store& store, mailbox::Namespace ns,
              std::unique_ptr<mailbox::DuplicateDb> duplicates, net::Metrics& metrics);
  ~LmtpService() override;
  // Everything from the config (options, namespace, duplicates.db in data_dir).
  static base::Result<std::unique_ptr<LmtpService>> create(std::string name,
                                                           const config::Config& config,
                                                           auth::UserStore& users,
                                                           mailbox::Store& store,
                                                           net::Metrics& metrics);

  std::string_view name() const override { return name_; }
  asio::awaitable<void> serve(std::shared_ptr<net::Connection> conn) override;
  // RFC 5321 §3.1: a server that cannot serve answers 421 and closes.
  std::string refusal() const override {
    return "421 4.3.2 " + options_.servername + " Too many connections, try again later\r\n";
  }
  net::ReaderLimits limits() const override {
    return {.max_line = kMaxCommandLine, .max_literal = options_.max_message_size};
  }
  // The MTA never logs in, and RFC 5321 §3.8 lets a server close the connection only after
  // QUIT, with a 421 when the service shuts down, or after a timeout: an LMTP connection
  // counts against the connection limits but is never closed to make room for another.
  bool evictableBeforeLogin() const override { return false; }
  std::chrono::milliseconds initialTimeout() const override { return options_.timeout; }

  const LmtpOptions& options() const { return options_; }
  mailbox::DuplicateDb* duplicates() { return duplicates_.get(); }

 private:
  const std::string name_;
  const LmtpOptions options_;
  std::unique_ptr<mailbox::DuplicateDb> duplicates_;
  Deliverer deliverer_;
  asio::thread_pool pool_;
  SessionEnv env_;
  std::atomic<uint64_t> next_session_{1};
};

}  // namespace darius::lmtpd
