// The typed arguments of SEARCH and UID SEARCH (RFC 9051 §6.4.4, §9; RFC 3501 §6.4.4): the
// ESEARCH result options (RFC 4731; SAVE from RFC 5182; CONTEXT and UPDATE from RFC 5267;
// PARTIAL from RFC 9394, where PARTIAL with ALL, or twice, is BAD), the CHARSET, and the search keys as
// a tree, parsed from the wire by parseSearchArgs() and nothing else: no mailbox, no session,
// so every key, every nesting and every hostile input can be tested (and fuzzed) alone.
//
//   search          = "SEARCH" [search-return-opts] SP search-program
//   search-program  = ["CHARSET" SP charset SP] search-key *(SP search-key)
//   search-key      = every key of RFC 3501 and RFC 9051, MODSEQ [entry-name entry-type-req]
//                     n (RFC 7162 §3.1.5), SAVEDBEFORE/SAVEDON/SAVEDSINCE/SAVEDATESUPPORTED
//                     (RFC 8514), EMAILID/THREADID (RFC 8474), OLDER/YOUNGER n (RFC 5032),
//                     a sequence set ("$" included,
//                     RFC 5182) and "(" search-key *(SP search-key) ")".
//
// The tree lives in one vector (keys[0] is the root, an AND of the top-level keys; a node's
// children are indices), which makes it cheap to copy and to destroy at any depth. NEW and OLD
// are spelled out as (RECENT UNSEEN) and (NOT RECENT) so the evaluator has fewer cases.
// Strings are kept as sent, in the command's CHARSET: converting them is the executor's job,
// because an unknown charset is a NO [BADCHARSET] (RFC 9051 §6.4.4), not a BAD.
//
// Limits (SearchLimits): nesting depth (parentheses, NOT and OR each add a level) and the
// number of keys; beyond them the command is BAD, so neither a deep "NOT NOT NOT ..." nor a
// flood of keys can exhaust the stack or memory. Every error is kInvalid with a message for
// the client's BAD, except too many keys, which is kTooBig like the other list limits of
// lib/proto.
//
// Ownership: plain values. Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/proto/arg_parser.h"
#include "lib/proto/imap_date.h"
#include "lib/proto/sequence_set.h"

namespace darius::imapd::search {

enum class KeyKind : uint8_t {
  kAnd,               // all children match: the root and every parenthesised list
  kOr,                // two children
  kNot,               // one child
  kAll,
  kSequence,          // set: message sequence numbers; "$" means the saved UIDs
  kUid,               // set: UIDs; "$" means the saved UIDs
  kFlag,              // system flag `flag` set: ANSWERED DELETED DRAFT FLAGGED SEEN
  kNoFlag,            // ... not set: UNANSWERED UNDELETED UNDRAFT UNFLAGGED UNSEEN
  kKeyword,           // text: the keyword
  kNoKeyword,
  kRecent,
  kLarger,            // number: RFC822.SIZE > number
  kSmaller,           // number: RFC822.SIZE < number
  kBefore,            // date against INTERNALDATE
  kOn,
  kSince,
  kSentBefore,        // date against the Date header
  kSentOn,
  kSentSince,
  kSavedBefore,       // date against the save date (RFC 8514)
  kSavedOn,
  kSavedSince,
  kSaveDateSupported,
  kFrom,              // text against the header field of that name
  kTo,
  kCc,
  kBcc,
  kSubject,
  kHeader,            // field, text
  kBody,              // text against the body
  kText,              // text against header and body
  kModseq,            // number; field/text: the entry name and type, if given
  kEmailId,           // text: the object id
  kThreadId,
  kOlder,             // number: seconds; INTERNALDATE at or before now - number (RFC 5032)
  kYounger,           // number: seconds; INTERNALDATE at or after now - number (RFC 5032)
};

struct SearchKey {
  KeyKind kind = KeyKind::kAll;
  uint32_t flag = 0;          // kFlag, kNoFlag: a mailbox::SystemFlag bit
  uint64_t number = 0;        // kLarger, kSmaller, kModseq
  proto::CivilDate date;      // the date keys
  std::string field;          // kHeader: field name; kModseq: entry name ("/flags/\\seen")
  std::string text;           // the string argument as sent; kModseq: entry type
  proto::SequenceSet set;     // kSequence, kUid
  std::vector<uint32_t> children;  // kAnd, kOr, kNot: indices into SearchArgs::keys
};

// RFC 9394 §3.1 (RFC 5267 §4.4): PARTIAL first:last, the positions of the results wanted,
// counted from 1. `from_end`: the range was written with "-" (-1 is the last result).
// Kept as sent (the response echoes it); "500:400" means "400:500". Both nonzero.
struct PartialRange {
  uint32_t first = 0;
  uint32_t last = 0;
  bool from_end = false;
  uint32_t low() const { return first < last ? first : last; }
  uint32_t high() const { return first < last ? last : first; }
  bool operator==(const PartialRange&) const = default;
};

// RFC 4731 / RFC 9051 result options.
struct ReturnOptions {
  bool min = false;
  bool max = false;
  bool all = false;
  bool count = false;
  bool save = false;     // RFC 5182
  bool context = false;  // RFC 5267 §4.2: a hint, nothing to do
  bool update = false;   // RFC 5267 §4.3: keep the result live
  std::optional<PartialRange> partial;  // RFC 9394
};

struct SearchArgs {
  bool by_uid = false;
  // "RETURN (...)" was given: the answer is an ESEARCH response even in an IMAP4rev1
  // session. "RETURN ()" means ALL (RFC 4731 §3.1).
  bool has_return = false;
  ReturnOptions ret;
  std::optional<std::string> charset;  // as sent
  std::vector<SearchKey> keys;         // keys[0]: the root (kAnd)
  bool uses_modseq = false;            // a MODSEQ key anywhere (RFC 7162 §3.1.5)
};

struct SearchLimits {
  int max_depth = 64;        // nesting levels below the root
  size_t max_keys = 10000;   // nodes in the tree (the root included)
};

// Parses what follows "SEARCH" (or "UID SEARCH"): the parser stands on the SP after the
// command name, and is left at the end of the last key (the caller checks the end).
base::Result<SearchArgs> parseSearchArgs(proto::ArgParser& p, bool by_uid,
                                         const SearchLimits& limits = {});

// The parenthesised list after RETURN (RFC 4731 §3.1, RFC 5267 §3.1 and §4, RFC 9394 §3.1):
// MIN MAX ALL COUNT SAVE CONTEXT UPDATE and PARTIAL range, each into `ret`; an unknown
// option, PARTIAL twice, or PARTIAL with ALL is kInvalid (BAD). SEARCH and SORT share it.
base::Status parseReturnOptions(proto::ArgParser& p, ReturnOptions& ret);

// RFC 9394 §4: "1:100" or "-1:-100" (the atom after PARTIAL); kInvalid otherwise. UID FETCH's
// PARTIAL modifier (§3.3) takes the same range.
base::Result<PartialRange> parsePartialRange(std::string_view text);

// A canonical, readable rendering of the tree, e.g. `(OR FROM "a" (NOT SEEN)) LARGER 5`;
// for tests and logs.
std::string describe(const SearchArgs& args);

}  // namespace darius::imapd::search
