// GETQUOTA (RFC 9208 §4.1.1): "* QUOTA root (resource usage limit ...)" for one quota root.
// The root is named as GETQUOTAROOT names it (the user's name for the root mailbox). A root
// the user may not look at answers exactly like one that does not exist: NO [NONEXISTENT]
// (RFC 5530), so GETQUOTA tells nobody which mailboxes exist.
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/quota_reply.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct GetquotaArgs {
  std::string root;
};

base::Result<GetquotaArgs> parseGetQuota(ArgParser& p) {
  GetquotaArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.root, p.mailbox());  // quota-root-name = astring
  return a;
}

asio::awaitable<Reply> executeGetQuota(Session& session, GetquotaArgs args) {
  auto root = quotaRootName(session, args.root);
  if (!root.ok() || !maySeeQuotaOf(session, *root)) co_return Reply::no("No such quota root", "NONEXISTENT");
  auto q = co_await session.blocking([&]() { return session.store().quota(*root); });
  if (!q.ok()) {
    if (q.status().isNotFound()) co_return Reply::no("No such quota root", "NONEXISTENT");
    co_return replyFor(session, q.status(), "GETQUOTA");
  }
  auto line = quotaResponse(session, *q);
  if (!line.ok()) co_return Reply::no("No such quota root", "NONEXISTENT");
  session.writeUntagged(*line);
  co_return Reply::ok("GETQUOTA completed");
}

}  // namespace

CommandSpec getquotaCommand() {
  return makeCommand<GetquotaArgs, parseGetQuota, executeGetQuota>("GETQUOTA", kAfterLogin);
}

}  // namespace darius::imapd
