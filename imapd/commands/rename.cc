// RENAME (RFC 9051 §6.3.6): renames a mailbox and everything below it. Renaming INBOX moves
// its messages into a new mailbox and leaves INBOX empty, sub-folders in place (the INBOX
// rule). Needs "x" on the source and "k" on the target's parent (RFC 4314 §4); the user's own
// hierarchy needs no "k", and an admin of the domain neither. A source the user may not know
// of is [NONEXISTENT]; a target they may not know of is [NOPERM], never ALREADYEXISTS. The
// ACLs go with the renamed mailboxes (§4: RENAME SHOULD NOT change them). Subscriptions
// follow the rename (as Cyrus does). A source in `.DELETED` is undelete (below).
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct RenameArgs {
  std::string from;
  std::string to;
};

base::Result<RenameArgs> parseRename(ArgParser& p) {
  RenameArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.from, p.mailbox());
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.to, p.mailbox());
  return a;
}

bool mayCreateUnder(Session& session, const mailbox::MailboxName& name) {
  if (isOwner(session, name) || mayAdminister(session, name)) return true;
  for (auto up = name.parent(); up; up = up->parent()) {
    auto e = session.store().list().lookup(*up);
    if (e.ok()) return (rightsOn(session, *up, *e) & mailbox::right::kCreate) != 0;
  }
  return false;
}

// RENAME ".DELETED/<folder>-<time>" "<name>" (docs/design/expunge.md): undelete. The folder
// comes back with its UIDVALIDITY, UIDs and flags when the name is free and the user may
// create it; only its owner (or an admin) sees it to begin with.
asio::awaitable<Reply> undelete(Session& session, const AreaName& area,
                                const mailbox::MailboxName& to) {
  if (area.kind != AreaName::Kind::kDeleted) {
    co_return Reply::no("Expunged messages come back by COPY, not RENAME", "CANNOT");
  }
  auto view = co_await session.blocking([&] { return areaViewAccess(session, area, mailbox::right::kLookup); });
  if (!view.ok()) co_return replyFor(session, view.status(), "RENAME");
  if (!mayCreateUnder(session, to)) co_return Reply::no("Permission denied", "NOPERM");
  if (auto there = session.store().list().lookup(to); there.ok()) {
    if ((rightsOn(session, to, *there) & mailbox::kRevealingRights) == 0) {
      co_return Reply::no("Permission denied", "NOPERM");
    }
    co_return Reply::no("Mailbox already exists", "ALREADYEXISTS");
  }
  base::Status s = co_await session.blocking([&]() -> base::Status {
    auto back = session.store().undelete(*view->deleted, to);
    return back.ok() ? base::Status::ok() : back.status();
  });
  if (!s.isOk()) co_return replyFor(session, s, "RENAME");
  co_return Reply::ok("RENAME completed");
}

asio::awaitable<Reply> executeRename(Session& session, RenameArgs args) {
  char sep = session.ns().separator();
  while (!args.to.empty() && args.to.back() == sep) args.to.pop_back();
  auto to = internalName(session, args.to);
  auto area = areaNameOf(session, args.from);
  if (!area.ok()) co_return noSuchMailbox();
  if (*area) {
    // A view's own name first: a user may not learn from the target's error that it exists.
    if (!to.ok()) {
      if (to.status().code() == base::Code::kTooBig) co_return Reply::no("Name too long", "TOOBIG");
      co_return Reply::no(to.status().message(), "CANNOT");
    }
    co_return co_await undelete(session, **area, *to);
  }
  auto from = internalName(session, args.from);
  if (!from.ok()) co_return noSuchMailbox();
  if (!to.ok()) {
    if (to.status().code() == base::Code::kTooBig) co_return Reply::no("Name too long", "TOOBIG");
    co_return Reply::no(to.status().message(), "CANNOT");
  }
  auto access = requireRights(session, *from,
                              mayAdminister(session, *from) ? 0 : mailbox::right::kDeleteMailbox);
  if (!access.ok()) co_return replyFor(session, access.status(), "RENAME");
  if (!mayCreateUnder(session, *to)) co_return Reply::no("Permission denied", "NOPERM");
  if (to->isInbox()) co_return Reply::no("Mailbox already exists", "ALREADYEXISTS");
  // A target the user may not know of is refused like one they may not create under, never
  // with ALREADYEXISTS (RFC 4314 §6).
  if (auto there = session.store().list().lookup(*to); there.ok()) {
    if ((rightsOn(session, *to, *there) & mailbox::kRevealingRights) == 0) {
      co_return Reply::no("Permission denied", "NOPERM");
    }
    co_return Reply::no("Mailbox already exists", "ALREADYEXISTS");
  }
  if (session.selected() != nullptr && from->contains(session.selected()->name())) {
    session.unselect();
  }
  std::string user = session.userName() ? session.userName()->userId() : session.user();
  base::Status s = co_await session.blocking([&]() -> base::Status {
    if (from->isInbox()) {
      auto made = session.store().renameInbox(*from, *to);
      return made.ok() ? base::Status::ok() : made.status();
    }
    auto moved = session.store().rename(*from, *to);
    if (!moved.ok()) return moved.status();
    return session.store().subscriptions().rename(user, *from, *to);
  });
  if (!s.isOk()) {
    if (s.code() == base::Code::kInvalid) co_return Reply::no(s.message(), "CANNOT");
    co_return replyFor(session, s, "RENAME");
  }
  co_return Reply::ok("RENAME completed");
}

}  // namespace

CommandSpec renameCommand() {
  return makeCommand<RenameArgs, parseRename, executeRename>("RENAME", kAfterLogin);
}

}  // namespace darius::imapd
