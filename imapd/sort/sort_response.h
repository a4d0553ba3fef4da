// The answer to a SORT: the untagged response, in sort order.
//
//   no RETURN:      * SORT 5 3 4 1 2 [(MODSEQ n)]          RFC 5256 §4, RFC 7162 §3.1.6
//   RETURN (...):   * ESEARCH (TAG "x") [UID] [MIN n] [MAX n] [COUNT n] [ALL set]
//                     [PARTIAL (range set-or-NIL)] [MODSEQ n]    RFC 5267 §3, RFC 4731,
//                                                                RFC 9394
//
// Without RETURN a SORT answers SORT even after ENABLE IMAP4rev2 (RFC 5267 §3: "If this is
// missing, the server will return results as specified in [SORT]"). With it (ESORT, §3.1),
// MIN and MAX are the first and the last message in sort order, not the lowest and highest
// numbers; ALL lists the messages in sort order as a sequence-set, so only runs that ascend
// by one are written as ranges (§3.2: "10:12" is fine, "12:10" SHOULD be avoided); COUNT is
// as in ESEARCH; PARTIAL's range counts positions in sort order and its set is in that order
// too. RETURN () means ALL, and so does a RETURN of only CONTEXT and UPDATE; MIN, MAX and ALL are left out when nothing matched,
// COUNT never is; RETURN (SAVE) alone sends no ESEARCH (RFC 9051 §6.4.4). MODSEQ, when the
// search used a MODSEQ key and found something, follows imapd/search's rules (RFC 7162
// §3.1.6, RFC 4731 §3.2): the highest mod-sequence of what is reported.
//
// "$" after SAVE is search::savedResult() of the sorted matches: with MIN or MAX only, the
// first and last in sort order; otherwise every match (RFC 5182 §2.4 makes it a set, so the
// order is lost there).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "imapd/search/search_args.h"
#include "imapd/search/search_eval.h"

namespace darius::imapd::sort {

// The response line with CRLF, or "" when none is due. `tag` is the command's, for the
// ESEARCH correlator; `sorted` is in sort order; numbers are UIDs for UID SORT.
std::string formatSortResponse(const search::SearchArgs& args, std::string_view tag,
                               const std::vector<search::SearchMatch>& sorted);

// The sequence-set of `numbers` in their order, ascending runs as ranges: "5,3:4,1:2".
std::string orderedSet(const std::vector<uint32_t>& numbers);

}  // namespace darius::imapd::sort
