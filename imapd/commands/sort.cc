// SORT and UID SORT (RFC 5256 §3, §4) with the DISPLAYFROM and DISPLAYTO keys (RFC 5957) and
// the ESORT return options (RFC 5267 §3), SAVE and "$" (RFC 5182), the MODSEQ key (RFC 7162
// §3.1.5, §3.1.6).
//
// SORT is SEARCH with an order: the search program is parsed and run by imapd/search exactly
// as for SEARCH (same keys, same charset handling: an unknown charset is NO [BADCHARSET ...],
// RFC 5256 §3 "NO - sort error: can't sort that charset"), then imapd/sort orders the matches
// from their index records and cache entries (sort_keys.h; no message file is opened for the
// sort itself). Both run on the blocking pool. "$" behaves as for SEARCH (RFC 9051 §6.4.4.1):
// a successful SAVE replaces it, a NO of a command with SAVE empties it, a BAD leaves it.
// Untagged EXPUNGE responses are held back after SORT, not after UID SORT (RFC 5256 §3).
//
// RETURN (UPDATE) (RFC 5267 §4.3, CONTEXT=SORT) keeps the result live as a search context in
// sort order (search/search_context.h with sort/sort_context.h): each change is an ADDTO or
// REMOVEFROM at the message's position in that order. PARTIAL (RFC 9394) counts positions in
// sort order (sort_response.h). A text key asks the search index first, as SEARCH does
// (search_session.h).
#include <memory>
#include <string_view>

#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/search/search_eval.h"
#include "imapd/search/search_response.h"
#include "imapd/search_session.h"
#include "imapd/session.h"
#include "imapd/sort/sort_args.h"
#include "imapd/sort/sort_context.h"
#include "imapd/sort/sort_keys.h"
#include "imapd/sort/sort_response.h"
#include "lib/log/log.h"

namespace darius::imapd {
namespace {

struct SortCommandArgs {
  sort::SortArgs args;
  std::string tag;  // for the ESEARCH correlator (RFC 4466 search-correlator)
};

template <bool kUid>
base::Result<SortCommandArgs> parseSortCommand(ArgParser& p) {
  SortCommandArgs a;
  a.tag = commandTag(p);
  DARIUS_ASSIGN_OR_RETURN(a.args, sort::parseSortArgs(p, kUid));
  return a;
}

asio::awaitable<Reply> executeSort(Session& session, SortCommandArgs command) {
  SelectedMailbox& sel = *session.selected();
  const search::SearchArgs& args = command.args.search;
  const std::string_view name = args.by_uid ? "UID SORT" : "SORT";
  // RFC 5267 §4.3: UPDATE under a tag a live context has is BAD, and has no effect.
  if (args.ret.update && session.searchContexts().has(command.tag)) {
    co_return Reply::bad("Tag reuse");
  }
  auto finish = [&](Reply r) {
    r.hold_expunges = !args.by_uid;
    if (r.kind == Reply::Kind::kNo && args.ret.save) session.savedResult() = proto::SequenceSet();
    return r;
  };
  if (args.uses_modseq) session.useCondstore();  // RFC 7162 §3.1: CONDSTORE-enabling

  auto program = search::SearchProgram::compile(args);
  if (!program.ok()) co_return finish(compileFailure(program.status()));
  std::unique_ptr<PreparedScope> prepared = co_await prepareScope(session, *program);
  const search::SearchScope& scope = prepared->scope;
  const std::vector<sort::SortCriterion>& criteria = command.args.criteria;
  const bool keep_keys = args.ret.update;
  size_t search_unreadable = 0;
  auto outcome = co_await session.blocking([&]() -> base::Result<sort::SortOutcome> {
    DARIUS_ASSIGN_OR_RETURN(search::SearchOutcome found, program->run(scope));
    search_unreadable = found.unreadable;
    return sort::sortMatches(sel.mailbox(), criteria, std::move(found.matches), keep_keys,
                             session.sortKeys());
  });
  co_await dropIfDamaged(session, *prepared);
  if (!outcome.ok()) co_return finish(replyFor(session, outcome.status(), name));
  if (search_unreadable + outcome->unreadable > 0) {
    log::warning(session.logContext(), "{}: {} message(s) of {} could not be read", name,
                 search_unreadable + outcome->unreadable, sel.name().toString());
  }

  session.connection().write(sort::formatSortResponse(args, command.tag, outcome->matches));
  if (args.ret.update) {
    auto order = std::make_shared<sort::SortOrder>(criteria, std::move(outcome->keys));
    startContext(session, command.tag, args, outcome->matches, sort::contextOrder(order),
                 sort::contextLearn(order));
  }
  if (args.ret.save) session.savedResult() = search::savedResult(args.ret, outcome->matches);
  (void)co_await session.flushIfLarge();
  co_return finish(Reply::ok(args.by_uid ? "UID SORT completed" : "SORT completed"));
}

}  // namespace

CommandSpec sortCommand() {
  return makeCommand<SortCommandArgs, parseSortCommand<false>, executeSort>(
      "SORT", stateBit(State::kSelected));
}

base::Result<std::unique_ptr<PreparedCommand>> parseUidSort(ArgParser& p) {
  return internal::parseAndBind<SortCommandArgs, parseSortCommand<true>, executeSort>(p);
}

}  // namespace darius::imapd
