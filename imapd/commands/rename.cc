// RENAME (RFC 9051 §6.3.6): renames a mailbox and everything below it. Renaming INBOX moves
// its messages into a new mailbox and leaves INBOX empty, sub-folders in place (the INBOX
// rule). Needs "x" on the source and "k" on the target's parent (RFC 4314 §4); the user's own
// hierarchy needs no "k", and an admin of the domain neither. A source the user may not know
// of is [NONEXISTENT]; a target they may not know of is [NOPERM], never ALREADYEXISTS. The
// ACLs go with the renamed mailboxes (§4: RENAME SHOULD NOT change them). Subscriptions
// follow the rename (as Cyrus does).
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct RenameArgs {
  std::string from;
  std::string to;
};

base::Result<RenameArgs> parse(ArgParser& p) {
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

asio::awaitable<Reply> execute(Session& session, RenameArgs args) {
  auto from = internalName(session, args.from);
  if (!from.ok()) co_return noSuchMailbox();
  char sep = session.ns().separator();
  while (!args.to.empty() && args.to.back() == sep) args.to.pop_back();
  auto to = internalName(session, args.to);
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
  return makeCommand<RenameArgs, parse, execute>("RENAME", kAfterLogin);
}

}  // namespace darius::imapd
