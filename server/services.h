// The one place that knows every service name dariusd can run and which daemon provides it.
//
// Ownership: makeService returns an owned Service that borrows everything in ServiceDeps;
// the caller keeps the deps alive for as long as the service runs. Thread-safety: start-up only.
#pragma once

#include <memory>
#include <string>

#include "auth/admins.h"
#include "auth/user_store.h"
#include "lib/base/result.h"
#include "lib/config/config.h"
#include "lib/net/metrics.h"
#include "lib/net/service.h"
#include "lib/net/tls.h"
#include "mailbox/store.h"

namespace darius::server {

struct ServiceDeps {
  const config::Config& config;
  auth::UserStore& users;
  mailbox::Store& store;
  net::Metrics& metrics;
  net::TlsContextPtr tls;  // null when no certificate is configured
  const auth::Admins& admins;
};

// True for the implicit-TLS services (imaps, pop3s).
bool isTlsService(const std::string& name);

base::Result<std::unique_ptr<net::Service>> makeService(const std::string& name,
                                                        const ServiceDeps& deps);

}  // namespace darius::server
