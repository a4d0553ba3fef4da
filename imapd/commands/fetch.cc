// FETCH and UID FETCH (RFC 9051 §6.4.5, §6.4.9, §7.5.2; RFC 3501 §6.4.5 for the IMAP4rev1
// items), with BINARY (RFC 3516), CONDSTORE's MODSEQ and CHANGEDSINCE (RFC 7162 §3.1.4),
// QRESYNC's VANISHED modifier (RFC 7162 §3.2.6), SAVEDATE (RFC 8514), EMAILID and THREADID
// (RFC 8474), PREVIEW (RFC 8970) and UID FETCH's PARTIAL modifier (RFC 9394 §3.3). The arguments are parsed by imapd/fetch/fetch_args.h;
// each message's response is laid out and streamed by imapd/fetch/fetch_render.h.
//
// The command: sequence numbers beyond the mailbox (or "*" in an empty one) are BAD (RFC 9051
// §9, seq-number); messages go out in sequence order, in batches. For each batch, messages
// whose items set \Seen (BODY[...], BINARY[...], RFC822, RFC822.TEXT) get it in one STORE, if
// the mailbox is not read-only and the user has the "s" right (RFC 4314 §4); their responses
// then carry the new FLAGS. A user who does not own the mailbox gets \Seen in their own seen
// state (issue 17, imapd/selected.h), never in the owner's index. Messages another session expunged meanwhile are served from their
// cache entry and file (phase-1 expunge keeps both) or skipped once they are gone. Expunges
// are held back after a FETCH by sequence number (RFC 9051 §7.5.1).
#include <algorithm>
#include <span>

#include "imapd/commands/commands.h"
#include "imapd/fetch/fetch_args.h"
#include "imapd/fetch/fetch_render.h"
#include "imapd/mailbox_access.h"
#include "imapd/search/search_response.h"
#include "imapd/session.h"
#include "imapd/vanished.h"

namespace darius::imapd {
namespace {

using fetch::FetchArgs;
using fetch::ItemKind;
using fetch::MessageRef;
using fetch::Outcome;

// Messages per \Seen STORE and per look-up of records: bounds the memory of a FETCH 1:*.
constexpr size_t kBatch = 256;

base::Result<FetchArgs> parseFetch(ArgParser& p) { return fetch::parseFetchArgs(p, false); }
base::Result<FetchArgs> parseUidFetchArgs(ArgParser& p) { return fetch::parseFetchArgs(p, true); }

// RFC 7162 §3.2.6: the expunged messages of the UID set with a mod-sequence above
// CHANGEDSINCE, in one VANISHED (EARLIER) response before any FETCH response.
asio::awaitable<base::Status> writeVanished(Session& session, SelectedMailbox& sel,
                                            const FetchArgs& args) {
  proto::SequenceSet set = args.set.substituteLastResult(session.savedResult());
  // The highest UID the session knows of: a message delivered since is new, not vanished.
  uint32_t known = sel.openedIndex().uidnext - 1;
  if (!sel.uids().empty()) known = std::max(known, sel.uids().back());
  auto vanished = co_await session.blocking([&] {
    return vanishedSince(sel.mailbox(), *args.changed_since, set, sel.uids(), known);
  });
  if (!vanished.ok()) co_return vanished.status();
  if (vanished->empty()) co_return base::Status::ok();
  auto out = proto::SequenceSet::fromRanges(std::move(*vanished));
  if (!out.ok()) co_return out.status();
  session.writeUntagged("VANISHED (EARLIER) " + out->format());
  co_return base::Status::ok();
}

// The messages the set names, ascending. "$" (RFC 5182) is the saved SEARCH result, which
// the session keeps as UIDs whatever the command.
std::vector<uint32_t> targetUids(Session& session, const SelectedMailbox& sel,
                                 const FetchArgs& args) {
  std::vector<uint32_t> uids =
      sel.resolve(args.set.substituteLastResult(proto::SequenceSet()), args.by_uid);
  if (args.set.hasLastResult()) {
    std::vector<uint32_t> saved = sel.resolve(session.savedResult(), /*by_uid=*/true);
    uids.insert(uids.end(), saved.begin(), saved.end());
    std::sort(uids.begin(), uids.end());
    uids.erase(std::unique(uids.begin(), uids.end()), uids.end());
  }
  return uids;
}

// The records of `uids` for one batch, in order, without those CHANGEDSINCE leaves out.
// `left_index` caches the records that left the index (read once per command, if ever).
// Returns how many records could not be read.
asio::awaitable<size_t> collectBatch(Session& session, SelectedMailbox& sel, const FetchArgs& args,
                                     std::span<const uint32_t> uids,
                                     std::optional<std::vector<mailbox::IndexRecord>>& left_index,
                                     std::vector<MessageRef>& batch) {
  size_t failed = 0;
  batch.clear();
  for (uint32_t uid : uids) {
    MessageRef ref;
    ref.msn = sel.msnOf(uid);
    auto record = sel.record(uid);
    if (!record.ok()) {
      log::error(session.logContext(), "FETCH: record of UID {}: {}", uid,
                 record.status().toString());
      ++failed;
      continue;
    }
    if (*record) {
      ref.record = **record;
    } else {
      // Expunged by another session and already out of the index, but still in this view
      // (its expunge not reported yet): its record went to darius.expunged.
      if (!left_index) {
        auto e = co_await session.blocking([&] { return sel.mailbox().expungedRecords(); });
        left_index = e.ok() ? std::move(*e) : std::vector<mailbox::IndexRecord>{};
      }
      auto it =
          std::lower_bound(left_index->begin(), left_index->end(), uid,
                           [](const mailbox::IndexRecord& r, uint32_t u) { return r.uid < u; });
      if (it == left_index->end() || it->uid != uid) continue;
      ref.record = *it;
      sel.applyView(ref.record);
      ref.cache_usable = false;
    }
    if (args.changed_since && ref.record.modseq <= *args.changed_since) continue;
    batch.push_back(ref);
  }
  co_return failed;
}

// markSeen() for a user who does not own the mailbox: the \Seen goes to their own seen
// state (selected.h), one change for the batch.
asio::awaitable<base::Status> markSeenForUser(Session& session, SelectedMailbox& sel,
                                              std::vector<MessageRef>& batch) {
  std::vector<uint32_t> uids;
  std::vector<size_t> where;  // index in `batch` of each UID
  for (size_t i = 0; i < batch.size(); ++i) {
    const mailbox::IndexRecord& r = batch[i].record;
    if (!r.live() || (r.system_flags & mailbox::kFlagSeen)) continue;
    uids.push_back(r.uid);
    where.push_back(i);
  }
  if (uids.empty()) co_return base::Status::ok();
  auto u = co_await session.blocking([&] { return sel.storeSeen(uids, true, {}); });
  if (!u.ok()) co_return u.status();
  for (size_t k = 0; k < u->results.size() && k < where.size(); ++k) {
    const mailbox::FlagResult& res = u->results[k];
    if (res.outcome != mailbox::FlagResult::Outcome::kChanged) continue;
    sel.noteReported(res.uid, res.record.modseq);
    batch[where[k]].record = res.record;
    batch[where[k]].flags_changed = true;
  }
  co_return base::Status::ok();
}

// RFC 9051 §6.4.5: \Seen for the batch's messages that lack it, in one STORE; their records
// then carry the new flags and modseq, and the session will not echo the change back.
asio::awaitable<base::Status> markSeen(Session& session, SelectedMailbox& sel,
                                       std::vector<MessageRef>& batch) {
  if (sel.perUserSeen()) co_return co_await markSeenForUser(session, sel, batch);
  std::vector<mailbox::FlagChange> changes;
  std::vector<size_t> where;  // index in `batch` of each change
  for (size_t i = 0; i < batch.size(); ++i) {
    const mailbox::IndexRecord& r = batch[i].record;
    if (!r.live() || (r.system_flags & mailbox::kFlagSeen)) continue;
    mailbox::FlagChange c;
    c.uid = r.uid;
    c.op = mailbox::FlagChange::Op::kAdd;
    c.system_flags = mailbox::kFlagSeen;
    changes.push_back(std::move(c));
    where.push_back(i);
  }
  if (changes.empty()) co_return base::Status::ok();
  auto results = co_await session.blocking([&] { return sel.mailbox().store(changes); });
  if (!results.ok()) co_return results.status();
  // Results come in the order of the changes (mailbox.h).
  for (size_t k = 0; k < results->size() && k < where.size(); ++k) {
    const mailbox::FlagResult& res = (*results)[k];
    if (res.outcome != mailbox::FlagResult::Outcome::kChanged) continue;
    sel.noteReported(res.uid, res.record.modseq);
    batch[where[k]].record = res.record;
    batch[where[k]].flags_changed = true;
  }
  co_return base::Status::ok();
}

asio::awaitable<Reply> run(Session& session, FetchArgs args) {
  SelectedMailbox& sel = *session.selected();
  if (args.vanished && !session.isEnabled("QRESYNC")) {
    co_return Reply::bad("VANISHED needs ENABLE QRESYNC");
  }
  if (!args.by_uid) {
    proto::SequenceSet plain = args.set.substituteLastResult(proto::SequenceSet());
    if (plain.largest(sel.count()) > sel.count() || (plain.hasStar() && sel.count() == 0)) {
      co_return Reply::bad("Message sequence number out of range");
    }
  }
  std::vector<uint32_t> uids = targetUids(session, sel, args);
  if (args.partial) {
    // RFC 9394 §3.3: the messages at those positions of the set's, before CHANGEDSINCE.
    search::Window w = search::partialWindow(*args.partial, uids.size());
    if (w.empty()) {
      uids.clear();
    } else {
      uids = std::vector<uint32_t>(uids.begin() + static_cast<std::ptrdiff_t>(w.begin),
                                   uids.begin() + static_cast<std::ptrdiff_t>(w.end));
    }
  }
  if (args.has(ItemKind::kModseq) || args.changed_since) session.useCondstore();
  const UpdateStyle style = session.updateStyle();
  if (args.vanished) {
    base::Status s = co_await writeVanished(session, sel, args);
    if (!s.isOk()) co_return replyFor(session, s, "FETCH");
  }
  const bool set_seen = !sel.readOnly() && sel.has(mailbox::right::kSeen) &&
                        std::any_of(args.items.begin(), args.items.end(),
                                    [](const fetch::FetchItem& i) { return i.setsSeen(); });

  fetch::MessageFetcher fetcher(session, sel, args, style);
  std::optional<std::vector<mailbox::IndexRecord>> left_index;
  size_t failed = 0, unknown_cte = 0, too_big = 0;
  std::vector<MessageRef> batch;
  for (size_t start = 0; start < uids.size(); start += kBatch) {
    std::span<const uint32_t> slice(uids.data() + start, std::min(kBatch, uids.size() - start));
    failed += co_await collectBatch(session, sel, args, slice, left_index, batch);
    if (set_seen) {
      base::Status s = co_await markSeen(session, sel, batch);
      if (!s.isOk()) co_return replyFor(session, s, "FETCH");
    }
    for (const MessageRef& ref : batch) {
      Outcome o = co_await fetcher.fetch(ref);
      if (o == Outcome::kLost) co_return Reply::none();
      if (o == Outcome::kFailed) ++failed;
      if (o == Outcome::kUnknownCte) ++unknown_cte;
      if (o == Outcome::kTooBig) ++too_big;
    }
  }
  if (unknown_cte > 0) {
    // RFC 3516 §4.3: the request fails with UNKNOWN-CTE; the other messages were answered.
    co_return Reply::no("Cannot decode the Content-Transfer-Encoding of some messages",
                        "UNKNOWN-CTE");
  }
  if (too_big > 0) {
    // RFC 5530 §3 LIMIT: the items asked of one message would hold too much in memory
    // (fetch_render.h); the other messages were answered.
    co_return Reply::no("Too many large items for one message", "LIMIT");
  }
  if (failed > 0) co_return Reply::no("Some messages could not be read", "SERVERBUG");
  co_return Reply::ok("FETCH completed");
}

asio::awaitable<Reply> executeFetch(Session& session, FetchArgs args) {
  const bool by_uid = args.by_uid;
  Reply r = co_await run(session, std::move(args));
  // RFC 9051 §7.5.1: no EXPUNGE may go out while a FETCH by sequence number is answered.
  r.hold_expunges = !by_uid;
  co_return r;
}

}  // namespace

CommandSpec fetchCommand() {
  return makeCommand<FetchArgs, parseFetch, executeFetch>("FETCH", stateBit(State::kSelected));
}

base::Result<std::unique_ptr<PreparedCommand>> parseUidFetch(ArgParser& p) {
  return internal::parseAndBind<FetchArgs, parseUidFetchArgs, executeFetch>(p);
}

}  // namespace darius::imapd
