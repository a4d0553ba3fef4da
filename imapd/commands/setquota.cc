// SETQUOTA (RFC 9208 §4.1.3, capability QUOTASET): replaces every limit of a quota root with
// the listed ones (an empty list leaves the root without limits), making the root if it was
// none: the root's mailbox and the mailboxes below it then count there (docs/formats/
// quota.md). Only an admin of the root's domain may (issue 17): anyone else gets NO [NOPERM]
// before the root is even looked up, so the reply tells nothing about what exists. A limit
// that is no number64 (over 2^63-1) is BAD (§7: resource-limit = number64); a resource this
// server does not have is NO [CANNOT] ("can't set that data"), and nothing changes.
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/quota_reply.h"
#include "imapd/session.h"
#include "lib/proto/chars.h"

namespace darius::imapd {
namespace {

struct SetquotaArgs {
  std::string root;
  mailbox::QuotaLimits limits;
  std::string unknown;  // the first resource name we do not have, for the NO
};

base::Result<SetquotaArgs> parseSetQuota(ArgParser& p) {
  SetquotaArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.root, p.mailbox());  // quota-root-name = astring
  DARIUS_RETURN_IF_ERROR(p.space());
  proto::ListOptions lo;
  lo.max_items = 16;  // a few resources; more is an attack, not a request
  base::Status listed = p.listOf(
             [&](ArgParser& q) -> base::Status {
               DARIUS_ASSIGN_OR_RETURN(std::string_view name, q.atom());
               DARIUS_RETURN_IF_ERROR(q.space());
               auto limit = q.number64();
               if (!limit.ok() || *limit > mailbox::kMaxQuotaLimit) {
                 return base::Status::invalid("A limit must be a number64 (at most 2^63-1)");
               }
               auto r = mailbox::parseQuotaResource(name);
               if (!r) {
                 if (a.unknown.empty()) a.unknown = proto::asciiUpper(name);
                 return base::Status::ok();
               }
               if (a.limits[*r]) return base::Status::invalid("A resource is listed twice");
               a.limits[*r] = *limit;
               return base::Status::ok();
             },
             lo);
  if (!listed.isOk()) return listed;
  return a;
}

asio::awaitable<Reply> executeSetQuota(Session& session, SetquotaArgs args) {
  auto root = quotaRootName(session, args.root);
  if (!root.ok() || !session.administers(root->domain())) {
    co_return Reply::no("SETQUOTA: only an administrator may set quotas", "NOPERM");
  }
  if (!args.unknown.empty()) {
    co_return Reply::no("SETQUOTA: no such resource: " + args.unknown, "CANNOT");
  }
  base::Status s = co_await session.blocking(
      [&]() { return session.store().setQuota(*root, args.limits); });
  if (!s.isOk()) {
    if (s.code() == base::Code::kInvalid) co_return Reply::no("No such mailbox", "NONEXISTENT");
    co_return replyFor(session, s, "SETQUOTA");
  }
  auto q = co_await session.blocking([&]() { return session.store().quota(*root); });
  if (q.ok()) {
    auto line = quotaResponse(session, *q);
    if (line.ok()) session.writeUntagged(*line);
  }
  co_return Reply::ok("SETQUOTA completed");
}

}  // namespace

CommandSpec setquotaCommand() {
  return makeCommand<SetquotaArgs, parseSetQuota, executeSetQuota>("SETQUOTA", kAfterLogin);
}

}  // namespace darius::imapd
