// Search contexts (RFC 5267 §4.3, CONTEXT=SEARCH): a SEARCH or UID SEARCH with RETURN (UPDATE)
// stays live while its mailbox is selected. The session tells the client how the result
// changes, as ESEARCH responses correlated by the command's tag:
//
//   * ESEARCH (TAG "a1") [UID] REMOVEFROM (pos set) ADDTO (pos set)
//
// What a context keeps: the tag, UID or sequence numbers, the compiled program with every
// sequence set pinned to the UIDs it named when the command ran (RFC 5267 §4.3: message
// numbers in the program are evaluated when the command is received; "$" and "*" too), and
// the current result as UIDs. When the mailbox changes, only the messages that changed are
// re-checked (new, flags changed: SearchProgram::runOn), never the mailbox, and expunged ones
// just leave the result.
//
// Order: a SEARCH context is in mailbox order; its updates use context position 0 and one
// set in mailbox order (RFC 5267 §4.3.3-4.3.4, the shortest form). A SORT context
// (CONTEXT=SORT) supplies an Order (a strict weak ordering over UIDs, sort/sort_context.h)
// and a Learn hook that reads the keys of messages joining it; the context then keeps its
// result in that order and reports each change at its position (1-based, processed in turn).
//
// OLDER and YOUNGER (RFC 5032) change a result with the clock, not with the mailbox. A context
// with them also re-checks, at each evaluate(), the messages whose INTERNALDATE crossed one of
// its boundaries (now minus the interval) since the last one, so its updates come when the
// session next reports changes (any command, or a change seen in IDLE): RFC 5032 §2 lets the
// server "perform the evaluation periodically" and "delay the updates".
//
// When the session writes updates (Session::sendUpdates, selected.h): (1) evaluate() runs the
// programs over the re-checked UIDs (the blocking pool when a program reads the cache or
// files); (2) removeExpunged() gives the REMOVEFROM for expunged results, which must go before
// the EXPUNGE responses, while their sequence numbers are still valid (§4.3.4); (3) after
// EXISTS and FETCH, applyChecks() gives the REMOVEFROM/ADDTO for the re-checked messages,
// whose sequence numbers are valid by then (§4.3.3).
//
// Ownership: SearchContexts owns its contexts; the session owns SearchContexts and clears it
// when the mailbox is no longer selected. Thread-safety: one session; evaluate() may run on
// the blocking pool while the session waits for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "imapd/search/search_args.h"
#include "imapd/search/search_eval.h"
#include "lib/base/result.h"
#include "lib/proto/sequence_set.h"

namespace darius::imapd::search {

// A message's sequence number in the client's view at this point; 0 if it has none. (A UID
// context reports UIDs and does not use it.)
using NumberOf = std::function<uint32_t(uint32_t uid)>;

class SearchContext {
 public:
  // True if a comes before b in the requested order (SORT); empty: mailbox order.
  using Order = std::function<bool(uint32_t a, uint32_t b)>;
  // Told the UIDs (ascending) that match after a re-check, before any of them is placed by
  // Order, so that a SORT context can read their sort keys (on the blocking pool, from the
  // scope's mailbox). Empty: Order needs nothing new.
  using Learn = std::function<base::Status(const SearchScope& scope,
                                           std::span<const uint32_t> uids)>;

  // `results`: the UIDs the command found, in mailbox order.
  SearchContext(std::string tag, bool by_uid, SearchProgram program,
                std::vector<uint32_t> results, Order order = {}, Learn learn = {});

  const std::string& tag() const { return tag_; }
  bool byUid() const { return by_uid_; }
  const SearchProgram& program() const { return program_; }
  // Whether the result depends on the clock (OLDER/YOUNGER), and the time (seconds since the
  // epoch) the result is for.
  bool ages() const { return !ages_.empty(); }
  int64_t evaluatedAt() const { return evaluated_at_; }
  // The UIDs of `scope` whose match may have changed with the clock from evaluatedAt() to
  // `now` (ascending), and now becomes evaluatedAt().
  base::Result<std::vector<uint32_t>> agedSince(const SearchScope& scope, int64_t now);
  // The result in the requested order.
  std::vector<uint32_t> results() const;
  bool contains(uint32_t uid) const { return members_.count(uid) != 0; }

  // Records which of `checked` (ascending UIDs) now match (`matching`, ascending, a subset),
  // after Learn has seen `matching`.
  base::Status setChecked(const SearchScope& scope, std::vector<uint32_t> checked,
                          std::vector<uint32_t> matching);
  // Drops the expunged UIDs `gone` from the result: the REMOVEFROM line, or "".
  std::string removeExpunged(const std::set<uint32_t>& gone, const NumberOf& number_of);
  // Applies what setChecked() recorded: the REMOVEFROM / ADDTO line, or "".
  std::string applyChecks(const NumberOf& number_of);

 private:
  // "(0 set)" or "(p1 n1 p2 n2 ...)" for `uids`, with the data item name; "" if none.
  std::string removeItems(const std::vector<uint32_t>& uids, const NumberOf& number_of);
  std::string addItems(const std::vector<uint32_t>& uids, const NumberOf& number_of);
  std::string line(const std::string& items) const;
  uint32_t clientNumber(uint32_t uid, const NumberOf& msn_of) const;

  std::string tag_;
  bool by_uid_ = false;
  SearchProgram program_;
  std::vector<int64_t> ages_;  // program_.ages()
  int64_t evaluated_at_ = 0;
  Order order_;
  Learn learn_;
  std::set<uint32_t> members_;     // the result
  std::vector<uint32_t> ordered_;  // the result in order_ (only when order_ is set)
  std::vector<uint32_t> checked_;
  std::vector<uint32_t> matching_;
};

// The live contexts of one session.
class SearchContexts {
 public:
  explicit SearchContexts(size_t max_contexts = 8) : max_(max_contexts) {}

  bool empty() const { return contexts_.empty(); }
  size_t size() const { return contexts_.size(); }
  bool full() const { return contexts_.size() >= max_; }
  bool has(std::string_view tag) const;
  void add(std::unique_ptr<SearchContext> context);
  // CANCELUPDATE (RFC 5267 §4.3.5): false if no context has that tag.
  bool cancel(std::string_view tag);
  void clear() { contexts_.clear(); }
  // The most expensive source a program reads (search_eval.h), to know whether evaluate()
  // belongs on the blocking pool.
  int cost() const;
  // Whether a context depends on the clock: evaluate() then reads the index's records.
  bool ages() const;

  // (1) Re-checks `uids` (ascending) against every context.
  base::Status evaluate(const SearchScope& scope, std::span<const uint32_t> uids);
  // (2) and (3) above, for all contexts: the ESEARCH lines.
  std::string removeExpunged(const std::set<uint32_t>& gone, const NumberOf& number_of);
  std::string applyChecks(const NumberOf& number_of);

 private:
  size_t max_;
  std::vector<std::unique_ptr<SearchContext>> contexts_;
};

// Resolves a sequence set to the UIDs it names now: (set, by_uid) -> ascending UIDs.
using ResolveSet = std::function<std::vector<uint32_t>(const proto::SequenceSet&, bool by_uid)>;
// `args` with every sequence-number and UID set replaced by the UIDs it names now, as UID
// keys (RFC 5267 §4.3: evaluated when the command is received).
SearchArgs pinSets(SearchArgs args, const ResolveSet& resolve);

}  // namespace darius::imapd::search
