// LIST (RFC 9051 §6.3.9, RFC 3501 §6.3.8) with LIST-EXTENDED (RFC 5258: selection options
// SUBSCRIBED, REMOTE, RECURSIVEMATCH; return options SUBSCRIBED, CHILDREN; several patterns;
// CHILDINFO), LIST-STATUS (RFC 5819: RETURN (STATUS (...))), SPECIAL-USE (RFC 6154: the
// selection and return options and the \Sent-style attributes) and CHILDREN (RFC 3348:
// \HasChildren / \HasNoChildren, always sent).
//
// Arguments: imapd/list/list_args.h. What is listed, and why a name is or is not:
// imapd/list/list_walk.h. Only mailboxes the user has the "l" right on appear (RFC 4314 §4),
// and hierarchy levels only above a visible mailbox, so a LIST never tells a user that a
// mailbox they may not see exists.
#include "imapd/commands/commands.h"
#include "imapd/list/list_args.h"
#include "imapd/list/list_respond.h"

namespace darius::imapd {
namespace {

asio::awaitable<Reply> executeList(Session& session, ListArgs args) {
  return respondList(session, std::move(args), ListMode::kList);
}

}  // namespace

CommandSpec listCommand() {
  return makeCommand<ListArgs, parseListArgs, executeList>("LIST", kAfterLogin);
}

}  // namespace darius::imapd
