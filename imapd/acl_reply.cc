#include "imapd/acl_reply.h"

#include "imapd/session.h"
#include "lib/proto/chars.h"

namespace darius::imapd {

using base::Result;
using base::Status;

Result<AclMailbox> aclMailbox(Session& session, std::string_view wire, mailbox::Rights need) {
  // `.EXPUNGED/<folder>` (docs/design/expunge.md): its rights are the view's own, l and r;
  // its ACL can be neither read nor changed (both need "a").
  auto view = expungedViewOf(session, wire);
  if (!view.ok()) return Status::notFound("no such mailbox");
  if (*view) {
    DARIUS_ASSIGN_OR_RETURN(MailboxAccess access, expungedViewAccess(session, **view));
    if ((access.rights & need) != need) {
      return Status::permission("the expunged view of a folder has a read-only ACL");
    }
    return AclMailbox{std::move(access), proto::quoteString(wire)};
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
