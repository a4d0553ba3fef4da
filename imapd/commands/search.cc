// SEARCH and UID SEARCH (RFC 9051 §6.4.4, §6.4.9; RFC 3501 §6.4.4) with ESEARCH result
// options (RFC 4731), SAVE and "$" (RFC 5182), the MODSEQ key (RFC 7162 §3.1.5), SAVEDATE keys
// (RFC 8514), EMAILID/THREADID (RFC 8474) and CHARSET through ICU.
//
// The work is split by concern under imapd/search/: search_args (the key tree, parsed before
// execution like every command's arguments), search_eval (compiling the strings and running
// the tree over the mailbox, cheapest sources first), text_match and message_text (charset,
// MIME decoding, case folding), search_response (SEARCH / ESEARCH and the value of "$"). This
// file ties them to the session: it runs the search on the blocking pool (it reads the cache
// and perhaps every message file), writes the response, and keeps "$" as RFC 5182 says: a
// successful SAVE replaces it, a NO of a command with SAVE empties it, a BAD leaves it alone
// (RFC 9051 §6.4.4.1). Expunges are held back after a SEARCH by sequence number (§7.5.1).
//
// An unknown CHARSET is NO [BADCHARSET (the charsets we convert)] (§6.4.4, §7.1).
//
// RETURN (UPDATE) (RFC 5267 §4.3, CONTEXT=SEARCH) keeps the search live as a search context
// of the session (search/search_context.h): its sets pinned to the UIDs they name now, its
// result the matches. A tag already used by a live context is BAD; a context the server
// will not keep (more than `search_contexts`) is an untagged NO [NOUPDATE "tag"] after the
// ESEARCH, the other options still answered (§4.3.1). PARTIAL (RFC 9394) is formatted by
// search_response.
#include <algorithm>
#include <string_view>
#include <vector>

#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/search/search_args.h"
#include "imapd/search/search_eval.h"
#include "imapd/search/search_response.h"
#include "imapd/search_session.h"
#include "imapd/session.h"
#include "lib/log/log.h"

namespace darius::imapd {
namespace {

struct SearchCommandArgs {
  search::SearchArgs args;
  std::string tag;  // for the ESEARCH correlator (RFC 4466 search-correlator)
};

template <bool kUid>
base::Result<SearchCommandArgs> parseSearchCommand(ArgParser& p) {
  SearchCommandArgs a;
  a.tag = commandTag(p);
  DARIUS_ASSIGN_OR_RETURN(a.args, search::parseSearchArgs(p, kUid));
  return a;
}

asio::awaitable<Reply> executeSearch(Session& session, SearchCommandArgs command) {
  SelectedMailbox& sel = *session.selected();
  const search::SearchArgs& args = command.args;
  // RFC 5267 §4.3: UPDATE under a tag a live context has is BAD, and has no effect.
  if (args.ret.update && session.searchContexts().has(command.tag)) {
    co_return Reply::bad("Tag reuse");
  }
  auto finish = [&](Reply r) {
    r.hold_expunges = !args.by_uid;
    // RFC 9051 §6.4.4.1: a NO of a SEARCH with SAVE empties "$"; a BAD changes nothing.
    if (r.kind == Reply::Kind::kNo && args.ret.save) session.savedResult() = proto::SequenceSet();
    return r;
  };
  // RFC 7162 §3.1: SEARCH MODSEQ is a CONDSTORE-enabling command.
  if (args.uses_modseq) session.useCondstore();

  auto program = search::SearchProgram::compile(args);
  if (!program.ok()) co_return finish(compileFailure(program.status()));
  // TEXT and BODY ask the search index first (search_session.h).
  std::unique_ptr<PreparedScope> prepared = co_await prepareScope(session, *program);
  const search::SearchScope& scope = prepared->scope;
  auto outcome = co_await session.blocking([&] { return program->run(scope); });
  co_await dropIfDamaged(session, *prepared);
  if (!outcome.ok()) co_return finish(replyFor(session, outcome.status(), "SEARCH"));
  if (outcome->unreadable > 0) {
    log::warning(session.logContext(), "SEARCH: {} message(s) of {} could not be read",
                 outcome->unreadable, sel.name().toString());
  }

  search::ResponseStyle style;
  style.esearch = search::wantsEsearch(args, session.isEnabled("IMAP4rev2"));
  style.tag = command.tag;
  session.connection().write(search::formatSearchResponse(args, style, outcome->matches));
  if (args.ret.update) startContext(session, command.tag, args, outcome->matches);
  if (args.ret.save) session.savedResult() = search::savedResult(args.ret, outcome->matches);
  (void)co_await session.flushIfLarge();
  co_return finish(Reply::ok(args.by_uid ? "UID SEARCH completed" : "SEARCH completed"));
}

}  // namespace

CommandSpec searchCommand() {
  return makeCommand<SearchCommandArgs, parseSearchCommand<false>, executeSearch>("SEARCH",
                                                              stateBit(State::kSelected));
}

base::Result<std::unique_ptr<PreparedCommand>> parseUidSearch(ArgParser& p) {
  return internal::parseAndBind<SearchCommandArgs, parseSearchCommand<true>, executeSearch>(p);
}

}  // namespace darius::imapd
