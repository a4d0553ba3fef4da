#include "imapd/quota_reply.h"

#include "imapd/mailbox_access.h"
#include "imapd/session.h"

namespace darius::imapd {

base::Result<mailbox::MailboxName> quotaRootName(const Session& session, std::string_view wire) {
  return internalName(session, wire);
}

bool maySeeQuotaOf(Session& session, const mailbox::MailboxName& name) {
  if (session.administers(name.domain()) || isOwner(session, name)) return true;
  return findMailbox(session, name).ok();
}

base::Result<std::string> quotaResponse(const Session& session, const mailbox::QuotaRootInfo& q) {
  DARIUS_ASSIGN_OR_RETURN(std::string root, wireName(session, q.root));
  std::string out = "QUOTA " + root + " (";
  bool first = true;
  for (mailbox::QuotaResource r : mailbox::kQuotaResources) {
    if (!q.limits[r]) continue;
    if (!first) out += ' ';
    first = false;
    out += std::string(mailbox::quotaResourceName(r)) + " " +
           std::to_string(mailbox::reportedUsage(q.usage, r)) + " " + std::to_string(*q.limits[r]);
  }
  return out + ")";
}

}  // namespace darius::imapd
