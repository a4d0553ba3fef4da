// The sort keys of one message and the order SORT puts messages in (RFC 5256 §3, RFC 5957 §3,
// §4), taken from the index record and the message's cache entry (mailbox/cache_format.h:
// its header block keeps Date, Subject, From, To and Cc), never from the message file, so a
// SORT costs what a FETCH ENVELOPE of the matches costs.
//
//   ARRIVAL      the internal date (the record)
//   DATE         the sent date and time in UTC, the internal date when the Date is missing
//                or broken (sent_time.h; the last Date field, as ENVELOPE takes it)
//   SIZE         RFC822.SIZE (the record)
//   SUBJECT      the base subject (base_subject.h)
//   FROM TO CC   the addr-mailbox of the first address of the field, as ENVELOPE has it
//                (all fields of that name, in order, lib/mime/address.h): a group's first
//                "address" is its start marker, whose addr-mailbox is the group name; none
//                at all is the empty string
//   DISPLAYFROM  RFC 5957 §3: the first address's display name, RFC 2047-decoded, if that is
//   DISPLAYTO    not empty; else addr-mailbox@addr-host; else addr-mailbox; else ""
//
// lib/mime's placeholders for a broken address (MISSING_MAILBOX, MISSING_DOMAIN) are not in
// the message, so they count as NIL here. Strings compare under i;unicode-casemap (RFC 5051,
// as RFC 5256 §3 and RFC 5957 ask): each is case-folded once (mailbox::foldForSearch) and the
// folded UTF-8 is compared octet by octet, which is code point order; the empty string comes
// first. The criteria are compared in order, REVERSE turning one around; equal messages keep
// their sequence order (the implicit last key, which REVERSE never touches).
//
// A message whose cache entry cannot be read sorts as if its header were empty (DATE then
// falls back to the internal date) and is counted for the log.
//
// Ownership: results own their strings. Thread-safety: pure functions; sortMatches() reads
// the Mailbox, which must not be used by anyone else meanwhile (run it on the blocking pool).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imapd/search/search_eval.h"
#include "imapd/sort/sort_args.h"
#include "lib/base/result.h"
#include "mailbox/index_format.h"
#include "mailbox/mailbox.h"

namespace darius::imapd::sort {

// The keys one message sorts by; only those the criteria name are filled in.
struct MessageKeys {
  search::SearchMatch match;  // msn (the tie-breaker), uid, modseq
  int64_t arrival = 0;
  int64_t sent = 0;
  uint64_t size = 0;
  // Folded (i;unicode-casemap) strings, indexed by textSlot().
  std::array<std::string, 6> text;
};

// What the criteria need from the cache entry's header block: nothing for ARRIVAL and SIZE.
bool needsHeader(const std::vector<SortCriterion>& criteria);

// The slot of a string key in MessageKeys::text, or -1 for ARRIVAL, DATE and SIZE.
int textSlotOf(SortKey key);

// The keys of one message from its record and its cached header block (empty: none).
MessageKeys keysOf(const std::vector<SortCriterion>& criteria, const search::SearchMatch& match,
                   const mailbox::IndexRecord& record, std::string_view header_block);

// Whether `a` sorts before `b`.
bool sortsBefore(const std::vector<SortCriterion>& criteria, const MessageKeys& a,
                 const MessageKeys& b);

// The individual string keys, exposed for tests: each returns the folded key.
std::string addressMailboxKey(const std::vector<std::string_view>& field_values);
std::string displayAddressKey(const std::vector<std::string_view>& field_values);

struct SortOutcome {
  std::vector<search::SearchMatch> matches;  // in sort order
  std::vector<MessageKeys> keys;             // the same, with their keys (when asked for)
  size_t unreadable = 0;                     // messages whose cache entry could not be read
};

// The keys of `match`'s message from `mailbox`'s record and cache entry; none if the record
// has left the index. A cache entry that cannot be read counts in `unreadable` and gives an
// empty header.
base::Result<std::optional<MessageKeys>> readKeys(const mailbox::Mailbox& mailbox,
                                                  const std::vector<SortCriterion>& criteria,
                                                  const search::SearchMatch& match,
                                                  size_t& unreadable);

class SortKeyCache;

// `matches` (a SEARCH's, ascending) in the order of `criteria`, their keys read from
// `mailbox`'s records and cache entries. A match whose record has left the index meanwhile
// is dropped, as SEARCH drops it. `keep_keys`: SortOutcome::keys is filled too (a sort
// context keeps them, sort_context.h). With `cache` (sort_key_cache.h), keys read before come
// from it, and those read now are added (not those of a message whose cache entry could not
// be read: its keys are a fallback, not the message's).
base::Result<SortOutcome> sortMatches(const mailbox::Mailbox& mailbox,
                                      const std::vector<SortCriterion>& criteria,
                                      std::vector<search::SearchMatch> matches,
                                      bool keep_keys = false, SortKeyCache* cache = nullptr);

}  // namespace darius::imapd::sort
