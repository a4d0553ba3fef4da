// STATUS (RFC 9051 §6.3.11): counts of a mailbox without selecting it, from its index header
// (imapd/status_items.h). A mailbox without the read right answers as missing (RFC 4314 §4
// requires "r" for STATUS); STATUS of the selected mailbox is allowed and reports its
// current state (the session's own updates still come through NOOP as usual).
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"
#include "imapd/status_items.h"
#include "imapd/user_seen.h"
#include "lib/proto/chars.h"

namespace darius::imapd {
namespace {

struct StatusArgs {
  std::string mailbox;
  std::vector<StatusItem> items;
};

base::Result<StatusArgs> parseStatus(ArgParser& p) {
  StatusArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  DARIUS_RETURN_IF_ERROR(p.space());
  proto::ListOptions lo;
  lo.allow_empty = false;
  DARIUS_ASSIGN_OR_RETURN(std::vector<std::string> names, p.atomList(lo));
  for (const std::string& n : names) {
    DARIUS_ASSIGN_OR_RETURN(StatusItem item, parseStatusItem(n));
    a.items.push_back(item);
  }
  return a;
}

asio::awaitable<Reply> executeStatus(Session& session, StatusArgs args) {
  // The reserved areas (docs/design/expunge.md): a view's own counts.
  auto area = areaNameOf(session, args.mailbox);
  if (!area.ok()) co_return noSuchMailbox();
  const bool bin = area->has_value();
  auto name = bin ? base::Result<mailbox::MailboxName>((*area)->name)
                  : internalName(session, args.mailbox);
  if (!name.ok()) co_return noSuchMailbox();
  for (StatusItem i : args.items) {
    if (i == StatusItem::kHighestModseq) session.useCondstore();
  }
  base::Result<std::string> values = base::Status::ok();
  if (bin) {
    values = co_await session.blocking([&]() -> base::Result<std::string> {
      DARIUS_ASSIGN_OR_RETURN(AreaView view,
                              areaViewAccess(session, **area, mailbox::right::kRead));
      DARIUS_ASSIGN_OR_RETURN(mailbox::OpenMailbox m, openAreaView(session, view));
      return statusValuesOf(session.store(), m, args.items, session.settings().max_append_size);
    });
  } else {
    // RFC 4314 §4: STATUS needs "r". A user who may know of the mailbox (LIST shows it with
    // "l") gets [NOPERM]; one who may not, [NONEXISTENT].
    auto access = requireRights(session, *name, mailbox::right::kRead);
    if (!access.ok()) co_return replyFor(session, access.status(), "STATUS");
    values = co_await session.blocking([&] {
      return statusValues(session.store(), *name, args.items, session.settings().max_append_size,
                          seenUser(session, *name));
    });
  }
  if (!values.ok()) co_return replyFor(session, values.status(), "STATUS");
  auto wire = bin ? base::Result<std::string>(proto::quoteString(args.mailbox))
                  : wireName(session, *name);
  if (!wire.ok()) co_return noSuchMailbox();
  session.writeUntagged("STATUS " + *wire + " (" + *values + ")");
  co_return Reply::ok("STATUS completed");
}

}  // namespace

CommandSpec statusCommand() {
  return makeCommand<StatusArgs, parseStatus, executeStatus>("STATUS", kAfterLogin);
}

}  // namespace darius::imapd
