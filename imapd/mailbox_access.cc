#include "imapd/mailbox_access.h"

#include "imapd/session.h"
#include "lib/proto/chars.h"
#include "lib/proto/mutf7.h"

namespace darius::imapd {

using base::Code;
using base::Result;
using base::Status;

namespace {

// The namespace needs a user; a login that owns no mailboxes gets a stand-in that owns none.
const mailbox::UserName& userOf(const Session& session) {
  static const mailbox::UserName kNobody{"anonymous", ""};
  return session.userName() != nullptr ? *session.userName() : kNobody;
}

// The wire name as UTF-8: modified UTF-7 decoded unless the client enabled UTF8=ACCEPT.
Result<std::string> utf8Of(const Session& session, std::string_view wire) {
  if (utf8Names(session)) return std::string(wire);
  auto decoded = proto::decodeMutf7(wire);
  if (!decoded.ok()) return Status::invalid("Mailbox name is not valid modified UTF-7");
  return std::move(*decoded);
}

}  // namespace

bool utf8Names(const Session& session) { return session.isEnabled("UTF8=ACCEPT"); }

Result<mailbox::MailboxName> internalName(const Session& session, std::string_view wire) {
  DARIUS_ASSIGN_OR_RETURN(std::string utf8, utf8Of(session, wire));
  return session.ns().toInternal(utf8, userOf(session));
}

Result<std::optional<AreaName>> areaNameOf(const Session& session, std::string_view wire) {
  DARIUS_ASSIGN_OR_RETURN(std::string utf8, utf8Of(session, wire));
  const mailbox::Namespace& ns = session.ns();
  AreaName::Kind kind = AreaName::Kind::kExpunged;
  std::optional<std::string> rest = ns.splitExpunged(utf8);
  if (rest) {
    if (rest->empty()) return Status::invalid("the expunged area itself holds no messages");
    if (std::optional<std::string> in_deleted = ns.splitDeleted(*rest)) {
      kind = AreaName::Kind::kDeletedExpunged;
      rest = std::move(in_deleted);
    }
  } else {
    rest = ns.splitDeleted(utf8);
    if (!rest) return std::optional<AreaName>();
    kind = AreaName::Kind::kDeleted;
  }
  int64_t deleted_at = 0;
  uint32_t ordinal = 1;
  if (kind != AreaName::Kind::kExpunged) {
    if (rest->empty()) return Status::invalid("the deleted area itself is no folder");
    std::optional<mailbox::DeletedDisplayName> d = mailbox::parseDeletedDisplayName(*rest);
    if (!d) return Status::invalid("a deleted folder's name ends in -YYYYMMDD-HH:MM:SS");
    deleted_at = d->deleted_at;
    ordinal = d->ordinal;
    *rest = std::move(d->folder);
  }
  DARIUS_ASSIGN_OR_RETURN(mailbox::MailboxName name, ns.toInternal(*rest, userOf(session)));
  return std::optional<AreaName>(AreaName{kind, std::move(name), deleted_at, ordinal});
}

Result<AreaView> areaViewAccess(Session& session, const AreaName& area, mailbox::Rights need) {
  const mailbox::MailboxName& name = area.name;
  const bool owner = isOwner(session, name);
  if (!owner && !mayAdminister(session, name)) return Status::notFound("no such mailbox");
  // The owner reads their own bin. An admin sees it (and may undelete) but, as everywhere,
  // reads mail only where the folder's ACL lets them.
  auto rightsFor = [&](const mailbox::MailboxEntry& e) {
    mailbox::Rights r = mailbox::right::kLookup;
    if (owner || (rightsOn(session, name, e) & mailbox::right::kRead) != 0) {
      r |= mailbox::right::kRead;
    }
    return r;
  };
  auto checked = [&](AreaView v) -> Result<AreaView> {
    if ((v.access.rights & need) != need) {
      return Status::permission("missing the " + mailbox::rightsToString(need) + " right");
    }
    return v;
  };
  if (!area.isDeleted()) {
    auto entry = session.store().list().lookup(name);
    if (!entry.ok()) return entry.status();
    if ((entry->flags & (mailbox::MailboxEntry::kDeleted | mailbox::MailboxEntry::kNoSelect)) !=
        0) {
      return Status::notFound("no such mailbox");
    }
    const mailbox::Rights rights = rightsFor(*entry);
    return checked(AreaView{area, MailboxAccess{name, *entry, rights}, std::nullopt});
  }
  DARIUS_ASSIGN_OR_RETURN(std::vector<mailbox::DeletedMailbox> kept,
                          session.store().listDeleted(name));
  for (mailbox::DeletedMailbox& d : kept) {
    if (d.name != name || d.deleted_at != area.deleted_at || d.ordinal != area.ordinal) continue;
    mailbox::MailboxEntry e;
    e.unique_id = d.unique_id;
    e.partition = d.partition;
    e.uidvalidity = d.uidvalidity;
    e.acl = d.acl;
    const mailbox::Rights rights = rightsFor(e);
    return checked(AreaView{area, MailboxAccess{name, std::move(e), rights}, std::move(d)});
  }
  return Status::notFound("no such deleted folder");
}

Result<mailbox::OpenMailbox> openAreaView(Session& session, const AreaView& view) {
  if (!view.deleted) return session.store().openExpungedView(view.area.name);
  return session.store().openDeleted(*view.deleted,
                                     view.area.kind == AreaName::Kind::kDeletedExpunged);
}

Result<std::string> externalName(const Session& session, const mailbox::MailboxName& name) {
  DARIUS_ASSIGN_OR_RETURN(std::string utf8, session.ns().toExternal(name, userOf(session)));
  if (utf8Names(session)) return utf8;
  return proto::encodeMutf7(utf8);
}

Result<std::string> wireName(const Session& session, const mailbox::MailboxName& name) {
  DARIUS_ASSIGN_OR_RETURN(std::string ext, externalName(session, name));
  return proto::quoteString(ext);
}

bool isOwner(const Session& session, const mailbox::MailboxName& name) {
  const mailbox::UserName* u = session.userName();
  return u != nullptr && name.isPersonal() && name.owner() == u->local &&
         name.domain() == u->domain;
}

std::string aclIdentity(const Session& session) {
  return session.userName() != nullptr ? session.userName()->userId() : std::string();
}

mailbox::Rights rightsOn(const Session& session, const mailbox::MailboxName& name,
                         const mailbox::MailboxEntry& entry) {
  return mailbox::effectiveRights(entry.acl, aclIdentity(session), isOwner(session, name),
                                  mayAdminister(session, name));
}

bool mayAdminister(const Session& session, const mailbox::MailboxName& name) {
  return session.administers(name.domain());
}

Result<MailboxAccess> findMailbox(Session& session, const mailbox::MailboxName& name) {
  auto entry = session.store().list().lookup(name);
  if (!entry.ok()) return entry.status();
  if ((entry->flags & (mailbox::MailboxEntry::kDeleted | mailbox::MailboxEntry::kNoSelect)) != 0) {
    return Status::notFound("no such mailbox");
  }
  MailboxAccess a{name, std::move(*entry), 0};
  a.rights = rightsOn(session, name, a.entry);
  if ((a.rights & mailbox::kRevealingRights) == 0) return Status::notFound("no such mailbox");
  return a;
}

Result<MailboxAccess> requireRights(Session& session, const mailbox::MailboxName& name,
                                    mailbox::Rights need) {
  DARIUS_ASSIGN_OR_RETURN(MailboxAccess a, findMailbox(session, name));
  if (!a.has(need)) return Status::permission("missing the " + mailbox::rightsToString(need) +
                                              " right");
  return a;
}

mailbox::CopyFlags settableFlags(mailbox::Rights rights) {
  using namespace mailbox;
  CopyFlags f;
  f.system = 0;
  if (rights & right::kSeen) f.system |= kFlagSeen;
  if (rights & right::kDeleteMessage) f.system |= kFlagDeleted;
  if (rights & right::kWrite) f.system |= kFlagAnswered | kFlagFlagged | kFlagDraft;
  f.keywords = (rights & right::kWrite) != 0;
  return f;
}

Reply noSuchMailbox() { return Reply::no("Mailbox does not exist", "NONEXISTENT"); }

Reply replyFor(Session& session, const Status& status, std::string_view what) {
  switch (status.code()) {
    case Code::kNotFound:
      return noSuchMailbox();
    case Code::kExists:
      return Reply::no("Mailbox already exists", "ALREADYEXISTS");
    case Code::kPermission:
      return Reply::no(std::string(what) + ": permission denied", "NOPERM");
    case Code::kTooBig:
      return Reply::no(std::string(what) + ": " + status.message(), "TOOBIG");
    case Code::kOverQuota:
      return Reply::no("Over quota", "OVERQUOTA");
    case Code::kInvalid:
      return Reply::no(std::string(what) + ": " + status.message(), "CANNOT");
    case Code::kLocked:
    case Code::kTemporary:
      return Reply::no(std::string(what) + ": try again", "INUSE");
    default:
      log::error(session.logContext(), "{}: {}", what, status.toString());
      return Reply::no(std::string(what) + ": internal error", "SERVERBUG");
  }
}

}  // namespace darius::imapd
