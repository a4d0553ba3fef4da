// What SEARCH, SORT and THREAD share with the session: the command's tag (the ESEARCH
// correlator), the answer to a program that does not compile, the SearchScope of the
// selected mailbox with its search index brought up to date, the clean-up after a query found
// the index damaged, and starting a live search context (RFC 5267 §4.3).
//
// The search index (mailbox/search_index.h) is opened for a program that reads message text
// (cost 2, search_eval.h) when the config allows it. When at most `search_index_catch_up`
// messages of the view are missing and no one else is indexing the mailbox, the command
// indexes them itself before answering; otherwise it asks dariusd's indexer and reads the
// messages the index does not cover, which gives the same answer.
//
// Ownership: a PreparedScope owns the index its scope points into; keep it alive while the
// scope is used. Thread-safety: the session's strand; the index is opened on the blocking
// pool.
#pragma once

#include <asio.hpp>
#include <memory>
#include <string>
#include <vector>

#include "imapd/command_table.h"
#include "imapd/search/search_context.h"
#include "imapd/search/search_eval.h"
#include "lib/base/status.h"
#include "lib/proto/arg_parser.h"
#include "mailbox/search_index.h"

namespace darius::imapd {

class Session;

// The command's tag: the first token of the command text, which the parser has read past.
// (Commands see only their arguments; the session has already checked the tag.)
std::string commandTag(const proto::ArgParser& p);

// RFC 9051 §6.4.4 / RFC 5256 §3: an unknown charset is NO [BADCHARSET (what we convert)],
// anything else a BAD with the compiler's message.
Reply compileFailure(const base::Status& status);

struct PreparedScope {
  std::unique_ptr<mailbox::SearchIndex> index;  // null: none used
  search::SearchScope scope;
};

// The scope of the selected mailbox for `program`, with the search index when it helps.
asio::awaitable<std::unique_ptr<PreparedScope>> prepareScope(Session& session,
                                                             const search::SearchProgram& program);

// After a run: if the query met a damaged index, the file is discarded and the indexer asked
// to rebuild it. The answer was right anyway (a damaged list rules nothing out).
asio::awaitable<void> dropIfDamaged(Session& session, const PreparedScope& prepared);

// RFC 5267 §4.3: keeps the command's result live as a context of the session, or refuses
// with an untagged NO [NOUPDATE "tag"] (§4.3.1: more than `search_contexts`, or a
// program that cannot be kept). `matches` is the result in mailbox order; `order` (SORT) keeps the
// context in sort order, `learn` tells it the sort keys of messages that join it. Runs
// before a SAVE of the command replaces "$", which the program may name.
void startContext(Session& session, const std::string& tag, const search::SearchArgs& args,
                  const std::vector<search::SearchMatch>& matches,
                  search::SearchContext::Order order = {}, search::SearchContext::Learn learn = {});

}  // namespace darius::imapd
