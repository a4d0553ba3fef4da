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
// will not keep (too many, OLDER/YOUNGER) is an untagged NO [NOUPDATE "tag"] after the
// ESEARCH, the other options still answered (§4.3.1). PARTIAL (RFC 9394) is formatted by
// search_response.
#include <algorithm>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/search/search_args.h"
#include "imapd/search/search_context.h"
#include "imapd/search/search_eval.h"
#include "imapd/search/search_response.h"
#include "mailbox/search_fold.h"
#include "imapd/session.h"
#include "lib/log/log.h"
#include "mailbox/search_index.h"
#include "mailbox/store.h"

namespace darius::imapd {
namespace {

struct SearchCommandArgs {
  search::SearchArgs args;
  std::string tag;  // for the ESEARCH correlator (RFC 4466 search-correlator)
};

// The command's tag. A command sees only its arguments and the Session API has no tag, but
// the parser reads the whole command text: the tag is its first token (the session has
// already checked it is one).
std::string tagOf(const ArgParser& p) {
  std::string_view line(p.rest().data() - p.position(), p.position() + p.rest().size());
  size_t end = 0;
  while (end < line.size() && proto::isTagChar(static_cast<unsigned char>(line[end]))) ++end;
  return std::string(line.substr(0, end));
}

template <bool kUid>
base::Result<SearchCommandArgs> parse(ArgParser& p) {
  SearchCommandArgs a;
  a.tag = tagOf(p);
  DARIUS_ASSIGN_OR_RETURN(a.args, search::parseSearchArgs(p, kUid));
  return a;
}

// The mailbox's search index, caught up first when at most `catch_up` messages of the view
// are missing and no one else is indexing it (the SEARCH does not wait for another writer).
std::unique_ptr<mailbox::SearchIndex> openSearchIndex(const mailbox::Mailbox& mb,
                                                      std::span<const uint32_t> view,
                                                      size_t catch_up, mailbox::Store& store) {
  auto index = mailbox::SearchIndex::open(mb.dir(), mb.index().uidvalidity);
  // The expunged and deleted views are read as they are: their UIDs were indexed while live.
  if (mb.isReadOnly() || view.empty()) return index;
  const bool damaged = index->stats().damaged;
  const size_t missing = static_cast<size_t>(
      view.end() - std::upper_bound(view.begin(), view.end(), index->lastUid()));
  if (missing == 0 && !damaged) return index;
  if (damaged || missing > catch_up) {
    store.requestSearchIndex(mb.dir());
    return index;
  }
  mailbox::SearchUpdateOptions o;
  o.wait = false;
  auto u = mailbox::updateSearchIndex(mb, o);
  if (!u.ok()) {
    if (u.status().code() != base::Code::kLocked) {
      log::warning("search index: {}: {}", mb.dir(), u.status().toString());
    }
    return index;
  }
  return mailbox::SearchIndex::open(mb.dir(), mb.index().uidvalidity);
}

// RFC 5267 §4.3: keeps the search live, or refuses with NOUPDATE (§4.3.1). Runs before a
// SAVE of this command replaces "$", which the program may name.
void startContext(Session& session, const SearchCommandArgs& command,
                  const std::vector<search::SearchMatch>& matches) {
  auto refuse = [&](std::string_view why) {
    session.writeUntagged("NO [NOUPDATE " + proto::quoteString(command.tag) + "] " +
                          std::string(why));
  };
  std::string why = search::contextRefusal(command.args);
  if (!why.empty()) return refuse(why);
  if (session.searchContexts().full()) return refuse("Too many search contexts");
  SelectedMailbox& sel = *session.selected();
  const proto::SequenceSet& saved = session.savedResult();
  search::SearchArgs pinned = search::pinSets(
      command.args, [&](const proto::SequenceSet& set, bool by_uid) {
        std::vector<uint32_t> uids = sel.resolve(set, by_uid);  // "$" counts as empty
        if (set.hasLastResult()) {
          // "$" is UIDs whatever the key (search_eval.cc).
          std::vector<uint32_t> more = sel.resolve(saved, /*by_uid=*/true);
          uids.insert(uids.end(), more.begin(), more.end());
          std::sort(uids.begin(), uids.end());
          uids.erase(std::unique(uids.begin(), uids.end()), uids.end());
        }
        return uids;
      });
  auto program = search::SearchProgram::compile(pinned);
  if (!program.ok()) return refuse("Cannot keep this search live");
  std::vector<uint32_t> uids;
  uids.reserve(matches.size());
  for (const search::SearchMatch& m : matches) uids.push_back(m.uid);
  session.searchContexts().add(std::make_unique<search::SearchContext>(
      command.tag, command.args.by_uid, std::move(*program), std::move(uids)));
}

asio::awaitable<Reply> execute(Session& session, SearchCommandArgs command) {
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
  if (!program.ok()) {
    if (program.status().code() == base::Code::kNotSupported) {
      co_return finish(Reply::no("Unsupported charset",
                                 "BADCHARSET (" + mailbox::advertisedCharsets() + ")"));
    }
    co_return finish(Reply::bad(program.status().message()));
  }
  // TEXT and BODY ask the search index first (imapd/search/search_eval.h); it is brought up
  // to date here when little is missing, else the background indexer is asked and the
  // messages not yet indexed are read, which gives the same answer.
  std::unique_ptr<mailbox::SearchIndex> index;
  if (program->cost() >= 2 && session.settings().search_index) {
    const mailbox::Mailbox& mb = sel.mailbox();
    std::span<const uint32_t> view = sel.uids();
    const size_t catch_up = session.settings().search_index_catch_up;
    mailbox::Store& store = session.store();
    index = co_await session.blocking([&mb, view, catch_up, &store] {
      return openSearchIndex(mb, view, catch_up, store);
    });
  }
  search::SearchScope scope;
  scope.index = index.get();
  scope.mailbox = &sel.mailbox();
  scope.view = sel.uids();
  scope.is_recent = [&sel](uint32_t uid) { return sel.isRecent(uid); };
  scope.saved = &session.savedResult();
  scope.seen = sel.seenState();  // per-user \Seen (selected.h)
  auto outcome = co_await session.blocking([&] { return program->run(scope); });
  if (index && index->queryFoundDamage()) {
    // The answer is right (a damaged list rules nothing out); the file goes, to be rebuilt.
    log::warning(session.logContext(), "search index of {} is damaged: rebuilding it",
                 sel.name().toString());
    std::string dir = sel.mailbox().dir();
    mailbox::Store& store = session.store();
    co_await session.blocking([dir, &store] {
      (void)mailbox::discardSearchIndex(dir);
      store.requestSearchIndex(dir);
      return 0;
    });
  }
  if (!outcome.ok()) co_return finish(replyFor(session, outcome.status(), "SEARCH"));
  if (outcome->unreadable > 0) {
    log::warning(session.logContext(), "SEARCH: {} message(s) of {} could not be read",
                 outcome->unreadable, sel.name().toString());
  }

  search::ResponseStyle style;
  style.esearch = search::wantsEsearch(args, session.isEnabled("IMAP4rev2"));
  style.tag = command.tag;
  session.connection().write(search::formatSearchResponse(args, style, outcome->matches));
  if (args.ret.update) startContext(session, command, outcome->matches);
  if (args.ret.save) session.savedResult() = search::savedResult(args.ret, outcome->matches);
  (void)co_await session.flushIfLarge();
  co_return finish(Reply::ok(args.by_uid ? "UID SEARCH completed" : "SEARCH completed"));
}

}  // namespace

CommandSpec searchCommand() {
  return makeCommand<SearchCommandArgs, parse<false>, execute>("SEARCH",
                                                              stateBit(State::kSelected));
}

base::Result<std::unique_ptr<PreparedCommand>> parseUidSearch(ArgParser& p) {
  return internal::parseAndBind<SearchCommandArgs, parse<true>, execute>(p);
}

}  // namespace darius::imapd
