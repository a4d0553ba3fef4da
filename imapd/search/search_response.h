// The answer to a SEARCH: the untagged response and the value SAVE leaves in "$".
//
//   IMAP4rev1, no RETURN:   * SEARCH 2 5 9 [(MODSEQ 917)]            RFC 3501 §7.2.5, RFC 7162 §3.1.6
//   RETURN given, or after ENABLE IMAP4rev2 (RFC 9051 §6.4.4, §7.3.4; RFC 4731):
//                           * ESEARCH (TAG "a1") [UID] [MIN n] [MAX n] [COUNT n] [ALL set]
//                                     [PARTIAL (range set-or-NIL)] [MODSEQ n]
//
// RETURN () and no RETURN at all (IMAP4rev2) mean ALL, and so does a RETURN whose only
// options are CONTEXT and UPDATE (RFC 5267 §4.3 leaves them no interaction with the others). MIN, MAX and ALL are left out when
// nothing matched, COUNT never is (RFC 9051 §6.4.4). RETURN (SAVE) alone sends no ESEARCH at
// all. MODSEQ, when the search used a MODSEQ key and found something (RFC 7162 §3.1.10,
// RFC 4731 §3.2), is the mod-sequence of the one message for a lone MIN or MAX, the higher of
// the two for MIN and MAX without ALL or COUNT, else the highest of all matches.
//
// SAVE (RFC 5182 §2.4, RFC 9051 §6.4.4.1, Table 4): with ALL or COUNT, or with neither MIN
// nor MAX, "$" is every match; with MIN and/or MAX only, it is those messages alone. With
// PARTIAL (RFC 9394 §3.2, Table 1): COUNT makes it every match, else it is the PARTIAL's
// messages and the MIN/MAX ones. "$" is
// kept as UIDs, whichever of SEARCH and UID SEARCH saved it.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "imapd/search/search_args.h"
#include "imapd/search/search_eval.h"
#include "lib/proto/sequence_set.h"

namespace darius::imapd::search {

struct ResponseStyle {
  bool esearch = false;  // ESEARCH rather than SEARCH
  std::string tag;       // the command's tag, for the ESEARCH correlator
};

// RETURN given or IMAP4rev2 enabled: ESEARCH; otherwise the IMAP4rev1 SEARCH response.
bool wantsEsearch(const SearchArgs& args, bool imap4rev2);

// RFC 9394 §3.1: the positions `range` selects among `count` results in their order, as
// [begin, end) indices (empty when none exists). Results are any ordered vector: SEARCH's
// in mailbox order, SORT's in its sort order.
struct Window {
  size_t begin = 0;
  size_t end = 0;
  bool empty() const { return begin >= end; }
};
Window partialWindow(const PartialRange& range, size_t count);
// "1:100", "-1:-100": the range as the client sent it.
std::string formatPartialRange(const PartialRange& range);

// The untagged response line(s) with CRLF, or "" when none is due (RETURN (SAVE) alone).
// `matches` ascend; numbers are UIDs for UID SEARCH, sequence numbers otherwise.
std::string formatSearchResponse(const SearchArgs& args, const ResponseStyle& style,
                                 const std::vector<SearchMatch>& matches);

// The UIDs SAVE stores (only meaningful when args.ret.save).
proto::SequenceSet savedResult(const ReturnOptions& ret, const std::vector<SearchMatch>& matches);

}  // namespace darius::imapd::search
