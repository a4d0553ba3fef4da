#include "imapd/search_session.h"

#include <algorithm>
#include <span>

#include "imapd/session.h"
#include "lib/log/log.h"
#include "lib/proto/chars.h"
#include "mailbox/search_fold.h"
#include "mailbox/store.h"

namespace darius::imapd {
namespace {

// The mailbox's search index, caught up first when at most `catch_up` messages of the view
// are missing and no one else is indexing it (the command does not wait for another writer).
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

}  // namespace

std::string commandTag(const proto::ArgParser& p) {
  std::string_view line(p.rest().data() - p.position(), p.position() + p.rest().size());
  size_t end = 0;
  while (end < line.size() && proto::isTagChar(static_cast<unsigned char>(line[end]))) ++end;
  return std::string(line.substr(0, end));
}

Reply compileFailure(const base::Status& status) {
  if (status.code() == base::Code::kNotSupported) {
    return Reply::no("Unsupported charset", "BADCHARSET (" + mailbox::advertisedCharsets() + ")");
  }
  return Reply::bad(status.message());
}

asio::awaitable<std::unique_ptr<PreparedScope>> prepareScope(Session& session,
                                                             const search::SearchProgram& program) {
  SelectedMailbox& sel = *session.selected();
  auto prepared = std::make_unique<PreparedScope>();
  if (program.cost() >= 2 && session.settings().search_index) {
    const mailbox::Mailbox& mb = sel.mailbox();
    std::span<const uint32_t> view = sel.uids();
    const size_t catch_up = session.settings().search_index_catch_up;
    mailbox::Store& store = session.store();
    prepared->index = co_await session.blocking(
        [&mb, view, catch_up, &store] { return openSearchIndex(mb, view, catch_up, store); });
  }
  search::SearchScope& scope = prepared->scope;
  scope.index = prepared->index.get();
  scope.mailbox = &sel.mailbox();
  scope.view = sel.uids();
  scope.is_recent = [&sel](uint32_t uid) { return sel.isRecent(uid); };
  scope.saved = &session.savedResult();
  scope.seen = sel.seenState();  // per-user \Seen (selected.h)
  scope.threads = session.settings().search_threads;
  co_return prepared;
}

asio::awaitable<void> dropIfDamaged(Session& session, const PreparedScope& prepared) {
  if (!prepared.index || !prepared.index->queryFoundDamage()) co_return;
  SelectedMailbox& sel = *session.selected();
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

void startContext(Session& session, const std::string& tag, const search::SearchArgs& args,
                  const std::vector<search::SearchMatch>& matches,
                  search::SearchContext::Order order, search::SearchContext::Learn learn) {
  auto refuse = [&](std::string_view why) {
    session.writeUntagged("NO [NOUPDATE " + proto::quoteString(tag) + "] " + std::string(why));
  };
  if (session.searchContexts().full()) return refuse("Too many search contexts");
  SelectedMailbox& sel = *session.selected();
  const proto::SequenceSet& saved = session.savedResult();
  search::SearchArgs pinned =
      search::pinSets(args, [&](const proto::SequenceSet& set, bool by_uid) {
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
  std::sort(uids.begin(), uids.end());
  session.searchContexts().add(std::make_unique<search::SearchContext>(
      tag, args.by_uid, std::move(*program), std::move(uids), std::move(order), std::move(learn)));
}

}  // namespace darius::imapd
