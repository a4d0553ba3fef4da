#include "imapd/acl_reply.h"

#include "imapd/session.h"
#include "lib/proto/chars.h"

namespace darius::imapd {

using base::Result;
using base::Status;

Result<AclMailbox> aclMailbox(Session& session, std::string_view wire, mailbox::Rights need) {
  // The reserved areas (docs/design/expunge.md): a view's rights are its own, l and r; its
  // ACL can be neither read nor changed (both need "a").
  auto area = areaNameOf(session, wire);
  if (!area.ok()) return Status::notFound("no such mailbox");
  if (*area) {
    DARIUS_ASSIGN_OR_RETURN(AreaView view, areaViewAccess(session, **area, 0));
    if ((view.access.rights & need) != need) {
      return Status::permission("a view of the expunged or deleted area has a read-only ACL");
    }
    return AclMailbox{std::move(view.access), proto::quoteString(wire)};
  }
  auto name = internalName(session, wire);
  if (!name.ok()) return Status::notFound("no such mailbox");
  DARIUS_ASSIGN_OR_RETURN(MailboxAccess access, requireRights(session, *name, need));
  auto out = wireName(session, *name);
  if (!out.ok()) return Status::notFound("no such mailbox");
  return AclMailbox{std::move(access), std::move(*out)};
}

IdentifierOrReply aclIdentifier(const Session& session, std::string_view wire,
                                const mailbox::MailboxName& mailbox) {
  auto id = mailbox::canonicalIdentifier(wire, session.ns(), mailbox.domain());
  if (id.ok()) return {std::move(*id), Reply::ok("")};
  if (id.status().code() == base::Code::kPermission) {
    return {std::nullopt, Reply::no("Identifier of another domain than the mailbox's", "CANNOT")};
  }
  return {std::nullopt, Reply::bad(id.status().message())};
}

std::string astringOut(std::string_view s) {
  bool atom = !s.empty();
  for (unsigned char c : s) atom = atom && proto::isAtomChar(c);
  return atom ? std::string(s) : proto::quoteString(s);
}

}  // namespace darius::imapd
