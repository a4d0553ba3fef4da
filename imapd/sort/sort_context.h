// The order of a live SORT context (CONTEXT=SORT, RFC 5267 §4.3): the sort keys of every
// message the context has held, by UID, so that a message that joins it is placed by
// comparing keys with its neighbours (search_context.h inserts it at its position and tells
// the client that position), never by sorting again. Keys never change while a message
// exists (every SORT key is taken from the message's immutable record and header), so they
// are read once: from the SORT's own outcome, then from the record and cache of each message
// that matches later.
//
// The tie-breaker is mailbox order (RFC 5256 §3), which in a context is UID order: the keys
// kept here carry the UID in match.msn, which only sortsBefore() reads.
//
// Ownership: the context's Order and Learn share one SortOrder. Thread-safety: none; the
// session's strand, or the blocking pool while the session waits for it (learn()).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "imapd/search/search_context.h"
#include "imapd/sort/sort_args.h"
#include "imapd/sort/sort_keys.h"
#include "lib/base/status.h"
#include "mailbox/mailbox.h"

namespace darius::imapd::sort {

class SortOrder {
 public:
  // `keys`: the keys of the SORT's result (SortOutcome::keys).
  SortOrder(std::vector<SortCriterion> criteria, std::vector<MessageKeys> keys);

  // Whether the message with UID `a` sorts before the one with UID `b`; a UID with no keys
  // (never learned) sorts as a message with an empty header and no dates.
  bool before(uint32_t a, uint32_t b) const;
  // Reads the keys of the UIDs not yet known. A UID whose record has gone stays unknown; a
  // cache entry that cannot be read counts as an empty header, as in sortMatches().
  base::Status learn(const mailbox::Mailbox& mailbox, std::span<const uint32_t> uids);
  size_t size() const { return keys_.size(); }

 private:
  const MessageKeys& keysOf(uint32_t uid, MessageKeys& scratch) const;

  std::vector<SortCriterion> criteria_;
  std::unordered_map<uint32_t, MessageKeys> keys_;
};

// The Order and Learn a SearchContext takes for `order`.
search::SearchContext::Order contextOrder(std::shared_ptr<SortOrder> order);
search::SearchContext::Learn contextLearn(std::shared_ptr<SortOrder> order);

}  // namespace darius::imapd::sort
