// CANCELUPDATE (RFC 5267 §4.3.5): ends the search contexts (search_context.h) named by the
// tags of the commands that asked for updates; none of them sends ADDTO or REMOVEFROM again.
//
//   command-select =/ "CANCELUPDATE" 1*(SP quoted)
//
// A tag that names no live context (never one, cancelled already, or ended by the server) is
// not an error: the client wants no updates for it, and it gets none.
#include <string>
#include <vector>

#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

struct CancelUpdateArgs {
  std::vector<std::string> tags;
};

base::Result<CancelUpdateArgs> parseCancelUpdate(ArgParser& p) {
  CancelUpdateArgs a;
  // 1*(SP quoted); a sane command names a few.
  do {
    DARIUS_RETURN_IF_ERROR(p.space());
    if (!p.peek('"')) return base::Status::invalid("CANCELUPDATE takes quoted tags");
    DARIUS_ASSIGN_OR_RETURN(std::string tag, p.quoted());
    a.tags.push_back(std::move(tag));
    if (a.tags.size() > 100) return base::Status::invalid("Too many tags");
  } while (p.peek(' '));
  return a;
}

asio::awaitable<Reply> executeCancelUpdate(Session& session, CancelUpdateArgs args) {
  for (const std::string& tag : args.tags) session.searchContexts().cancel(tag);
  co_return Reply::ok("No further updates");
}

}  // namespace

CommandSpec cancelupdateCommand() {
  return makeCommand<CancelUpdateArgs, parseCancelUpdate, executeCancelUpdate>(
      "CANCELUPDATE", stateBit(State::kSelected));
}

}  // namespace darius::imapd
