// GETQUOTAROOT (RFC 9208 §4.1.2): "* QUOTAROOT mailbox root..." and a QUOTA response for each
// root. Darius has at most one root per mailbox (the deepest covering one, docs/formats/
// quota.md); a mailbox with none gets "* QUOTAROOT mailbox" alone. The mailbox need not exist
// (§4.1.2: which root a new mailbox would get), but one the user may not see answers like a
// missing one, NO [NONEXISTENT], whether it exists or not.
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/quota_reply.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct GetquotarootArgs {
  std::string mailbox;
};

base::Result<GetquotarootArgs> parseGetQuotaRoot(ArgParser& p) {
  GetquotarootArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  return a;
}

asio::awaitable<Reply> executeGetQuotaRoot(Session& session, GetquotarootArgs args) {
  auto name = internalName(session, args.mailbox);
  if (!name.ok() || !maySeeQuotaOf(session, *name)) co_return noSuchMailbox();
  auto wire = wireName(session, *name);
  if (!wire.ok()) co_return noSuchMailbox();
  auto root = session.store().quotaRootOf(*name);
  if (!root.ok()) co_return replyFor(session, root.status(), "GETQUOTAROOT");
  std::optional<mailbox::QuotaRootInfo> info;
  if (*root) {
    auto q = co_await session.blocking([&]() { return session.store().quota(**root); });
    if (q.ok()) {
      info = std::move(*q);
    } else if (!q.status().isNotFound()) {  // an implicit root whose INBOX is gone: none
      co_return replyFor(session, q.status(), "GETQUOTAROOT");
    }
  }
  std::optional<std::string> quota_line;
  if (info) {
    auto line = quotaResponse(session, *info);
    if (line.ok()) quota_line = std::move(*line);  // else a root the user cannot name
  }
  if (!quota_line) {
    session.writeUntagged("QUOTAROOT " + *wire);
    co_return Reply::ok("GETQUOTAROOT completed");
  }
  auto root_wire = wireName(session, info->root);
  session.writeUntagged("QUOTAROOT " + *wire + " " + *root_wire);
  session.writeUntagged(*quota_line);
  co_return Reply::ok("GETQUOTAROOT completed");
}

}  // namespace

CommandSpec getquotarootCommand() {
  return makeCommand<GetquotarootArgs, parseGetQuotaRoot, executeGetQuotaRoot>("GETQUOTAROOT",
                                                                               kAfterLogin);
}

}  // namespace darius::imapd
