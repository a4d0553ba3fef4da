// The typed arguments of SORT and UID SORT (RFC 5256 §3, §4), with the ESORT return options
// (RFC 5267 §3) and the DISPLAYFROM / DISPLAYTO keys (RFC 5957 §4), parsed from the wire by
// parseSortArgs() alone, so that every criterion and every hostile input can be tested and
// fuzzed without a mailbox.
//
//   sort             = ["UID" SP] "SORT" [SP sort-return-opts] SP sort-criteria SP
//                      search-criteria
//   sort-return-opts = "RETURN" SP "(" [search-return-opt *(SP search-return-opt)] ")"
//   sort-criteria    = "(" sort-criterion *(SP sort-criterion) ")"
//   sort-criterion   = ["REVERSE" SP] sort-key
//   sort-key         = "ARRIVAL" / "CC" / "DATE" / "FROM" / "SIZE" / "SUBJECT" / "TO" /
//                      "DISPLAYFROM" / "DISPLAYTO"
//   search-criteria  = charset 1*(SP search-key)
//
// Unlike SEARCH, the charset is mandatory and bare (no CHARSET word): it is read here and
// the search keys are handed to imapd/search's parseSearchArgs(), whose SearchArgs carries
// the charset and the return options on to SearchProgram::compile() (an unknown charset is a
// NO [BADCHARSET] there, not a BAD here). The return options are SEARCH's
// (search::parseReturnOptions): MIN MAX ALL COUNT SAVE, PARTIAL (RFC 9394), CONTEXT and
// UPDATE (RFC 5267 §4). Every error is kInvalid with a message for the BAD,
// except the search parser's kTooBig for a flood of keys.
//
// Ownership: plain values. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "imapd/search/search_args.h"
#include "lib/base/result.h"
#include "lib/proto/arg_parser.h"

namespace darius::imapd::sort {

enum class SortKey : uint8_t {
  kArrival,      // INTERNALDATE
  kCc,           // addr-mailbox of the first Cc address
  kDate,         // sent date and time in UTC (sent_time.h)
  kFrom,
  kSize,         // RFC822.SIZE
  kSubject,      // base subject (base_subject.h)
  kTo,
  kDisplayFrom,  // RFC 5957: display name, else addr-spec, of the first From address
  kDisplayTo,
};

struct SortCriterion {
  SortKey key = SortKey::kArrival;
  bool reverse = false;
  bool operator==(const SortCriterion&) const = default;
};

struct SortArgs {
  std::vector<SortCriterion> criteria;  // at least one
  // The search program: by_uid, has_return and ret (the ESORT options), charset (always set),
  // keys.
  search::SearchArgs search;
};

inline constexpr size_t kMaxSortCriteria = 32;  // each key once, twice with REVERSE, and slack

// Parses what follows "SORT" (or "UID SORT"): the parser stands on the SP after the command
// name, and is left at the end of the last search key (the caller checks the end).
base::Result<SortArgs> parseSortArgs(proto::ArgParser& p, bool by_uid,
                                     const search::SearchLimits& limits = {});

// "REVERSE DATE SUBJECT" style rendering of the criteria, for tests and logs.
std::string describeCriteria(const std::vector<SortCriterion>& criteria);

}  // namespace darius::imapd::sort
