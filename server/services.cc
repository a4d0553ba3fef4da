#include "server/services.h"

#include "imapd/imap_service.h"
#include "lmtpd/lmtp_service.h"
#include "pop3d/pop3_service.h"
#include "server/metrics_service.h"

namespace darius::server {

bool isTlsService(const std::string& name) { return name == "imaps" || name == "pop3s"; }

base::Result<std::unique_ptr<net::Service>> makeService(const std::string& name,
                                                        const ServiceDeps& deps) {
  std::unique_ptr<net::Service> s;
  if (name == "imap" || name == "imaps") {
    s = std::make_unique<imapd::ImapService>(name, deps.config, deps.users, &deps.store,
                                             deps.metrics, deps.tls != nullptr, &deps.admins);
  } else if (name == "pop3" || name == "pop3s") {
    DARIUS_ASSIGN_OR_RETURN(s, pop3d::Pop3Service::create(name, deps.config, deps.users,
                                                          deps.store, deps.metrics,
                                                          &deps.admins));
  } else if (name == "lmtp") {
    DARIUS_ASSIGN_OR_RETURN(s, lmtpd::LmtpService::create(name, deps.config, deps.users,
                                                          deps.store, deps.metrics));
  } else if (name == "metrics") {
    s = std::make_unique<MetricsService>(deps.metrics);
  } else {
    return base::Status::notSupported("unknown service '" + name + "' in services");
  }
  return s;
}

}  // namespace darius::server
