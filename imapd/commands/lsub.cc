// LSUB (RFC 3501 §6.3.9; obsolete in RFC 9051, kept for IMAP4rev1 clients): the user's
// subscribed names that match the pattern, existing or not. A name that is not a mailbox the
// user can select is flagged \Noselect, and so is a level returned for a subscribed name
// below it that "%" does not reach ("foo" for a subscribed "foo/bar", RFC 3501 §6.3.9).
// LIST (SUBSCRIBED) is the modern form (list.cc); both run imapd/list/list_walk.h.
#include "imapd/commands/commands.h"
#include "imapd/list/list_args.h"
#include "imapd/list/list_respond.h"

namespace darius::imapd {
namespace {

asio::awaitable<Reply> executeLsub(Session& session, ListArgs args) {
  return respondList(session, std::move(args), ListMode::kLsub);
}

}  // namespace

CommandSpec lsubCommand() {
  return makeCommand<ListArgs, parseLsubArgs, executeLsub>("LSUB", kAfterLogin);
}

}  // namespace darius::imapd
