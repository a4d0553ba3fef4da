// Evaluation of a parsed SEARCH (search_args.h) over the messages of one open mailbox, as the
// session sees them (RFC 9051 §6.4.4; RFC 7162 §3.1.5 MODSEQ; RFC 8514 SAVED*; RFC 8474
// EMAILID/THREADID; RFC 5182 "$").
//
// SearchProgram::compile() turns SearchArgs into something ready to run: the strings are
// converted from the command's CHARSET to UTF-8 and case-folded once (text_match.h), and the
// keys of every AND are reordered by cost, so that a message is rejected by its index record
// before its cache entry is decoded, and by its cache entry before its file is opened:
//
//   cost 0, the index record: sequence numbers, UID, flags, keywords, \Recent, sizes,
//           INTERNALDATE and save date, OLDER/YOUNGER, MODSEQ, EMAILID, THREADID;
//   cost 1, the cache entry (mailbox/cache_format.h): FROM, TO, CC, BCC, SUBJECT, HEADER of
//           a field the cache keeps, SENT* (from the cached Date);
//   cost 2, the message file: BODY, TEXT, HEADER of a trace field the cache leaves out
//           (Received, DKIM-Signature, ... mailbox/cache_fill.h). BODY and TEXT first ask
//           the search index (SearchScope::index), which rules most messages out unopened.
//
// So SEARCH SUBJECT, FROM, flags and dates never open a message file, and SEARCH TEXT opens
// each candidate's file once (mapped, parsed once, then dropped before the next message),
// whatever the number of keys that need it. Memory is one message's worth at a time per
// thread plus the list of matches. With SearchScope::threads > 1, run() first settles what
// the records, cache entries and search index decide, then reads the remaining messages'
// files on that many threads; each thread evaluates whole messages and never touches the
// Mailbox (the cache entries of those messages are read beforehand).
//
// Dates (RFC 9051 §6.4.4, "disregarding time and timezone"): INTERNALDATE is taken as the day
// in the zone it was given in (the APPEND's or delivery's), SENT* as the day written in the
// Date header (sent_date.h; the internal date when there is none or it cannot be read, as
// RFC 5256 §2.2 has SORT do), and the save date as the day in UTC (the index keeps no zone for
// it; a record without a save date uses its internal date, RFC 8514 §4.3).
//
// A message whose cache entry or file cannot be read does not match the keys that need them
// and is counted in SearchOutcome::unreadable for the log; an unreadable index is an error.
//
// Ownership: a SearchProgram owns its keys and matchers; run() borrows the mailbox and the
// scope for the duration of the call. Thread-safety: a compiled program is immutable and may
// run on any thread; run() uses the Mailbox, which must not be used by anyone else meanwhile
// (the session awaits it on the blocking pool), and may call scope.is_recent from the
// threads it starts (it must be safe to call concurrently, as a read of a set is).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "imapd/search/search_args.h"
#include "mailbox/search_fold.h"
#include "lib/base/result.h"
#include "lib/proto/sequence_set.h"
#include "mailbox/index_format.h"
#include "mailbox/mailbox.h"
#include "mailbox/search_index.h"
#include "mailbox/seen_state.h"

namespace darius::imapd::search {

// What a search runs over.
struct SearchScope {
  const mailbox::Mailbox* mailbox = nullptr;
  // The session's view: message sequence number n is view[n - 1] (UIDs, ascending).
  std::span<const uint32_t> view;
  // \Recent for this session (RFC 3501 §2.3.2); empty: nothing is recent.
  std::function<bool(uint32_t uid)> is_recent;
  // "$" (RFC 5182): the saved result, as UIDs. Null: empty.
  const proto::SequenceSet* saved = nullptr;
  // The user's own \Seen and modseqs (mailbox/seen_state.h) for a mailbox they do not own;
  // null: the index's. SEEN, UNSEEN, NEW, OLD and MODSEQ then follow the user's view.
  const mailbox::SeenState* seen = nullptr;
  // The mailbox's search index (mailbox/search_index.h); null: every TEXT and BODY key reads
  // every message. With it, a message the index rules out is not opened for that key; the
  // rest are checked against the message as without it, so the result is the same.
  const mailbox::SearchIndex* index = nullptr;
  // "Now" for OLDER and YOUNGER (RFC 5032), seconds since the epoch; 0: the clock at run().
  int64_t now = 0;
  // Threads run() may use to read and check message files (the caller's among them): with
  // more than one, a first pass settles every message its index record, cache entry and the
  // search index decide, and the rest are read in parallel (search_threads).
  size_t threads = 1;
};

struct SearchMatch {
  uint32_t msn = 0;
  uint32_t uid = 0;
  uint64_t modseq = 0;
  bool operator==(const SearchMatch&) const = default;
};

struct SearchOutcome {
  std::vector<SearchMatch> matches;  // ascending
  size_t unreadable = 0;             // messages whose cache entry or file could not be read
  size_t files_opened = 0;           // message files read (each at most once)
};

class SearchProgram {
 public:
  // kNotSupported when the CHARSET is not one this server converts (the caller answers
  // NO [BADCHARSET]).
  static base::Result<SearchProgram> compile(const SearchArgs& args);

  base::Result<SearchOutcome> run(const SearchScope& scope) const;
  // The same over only `uids` (ascending): a search context (search_context.h) re-checks
  // the messages that changed, not the mailbox. A UID not in the index does not match;
  // SearchMatch::msn is its number in scope.view, or 0 when the view does not hold it.
  base::Result<SearchOutcome> runOn(const SearchScope& scope,
                                    std::span<const uint32_t> uids) const;

  // The most expensive source the program reads (0 index, 1 cache, 2 message files).
  int cost() const;
  // The intervals of its OLDER and YOUNGER keys (RFC 5032), in seconds: a message's match
  // can change with the clock only when its INTERNALDATE is near now minus one of them.
  std::vector<int64_t> ages() const;

  struct Node {
    KeyKind kind = KeyKind::kAll;
    uint32_t flag = 0;
    uint64_t number = 0;
    int64_t day = 0;  // the date keys, as days since 1970-01-01
    std::string field;
    std::string text;
    proto::SequenceSet set;
    std::vector<uint32_t> children;  // AND: cheapest first
    std::optional<mailbox::TextMatcher> matcher;
    int cost = 0;
  };

 private:
  std::vector<Node> nodes_;  // nodes_[0] is the root
};

// RFC 8474 object ids as FETCH spells them (Cyrus's form): EMAILID is "M" and the first 24
// hex digits of the message's GUID (SHA-1 of its bytes, so identical messages share it);
// THREADID is "T" and the 16 hex digits of the thread id, nullopt (NIL) while there is none.
std::string emailIdOf(const mailbox::IndexRecord& record);
std::optional<std::string> threadIdOf(const mailbox::IndexRecord& record);

}  // namespace darius::imapd::search
