// The base subject of RFC 5256 §2.1: what SORT SUBJECT orders by and what THREAD
// ORDEREDSUBJECT / REFERENCES group by. The raw Subject field value has its RFC 2047 encoded
// words decoded to UTF-8 (mailbox::decodeHeaderValue), white space runs collapsed to one
// space, then the reply/forward decorations stripped by the §2.1 loop:
//
//   (2) trailing subj-trailer  ("(fwd)" / WSP), repeatedly
//   (3) leading subj-leader    ((*subj-blob subj-refwd) / WSP), repeatedly
//   (4) a leading subj-blob    ("[...]" *WSP) if a non-empty subj-base remains
//   (5) (3) and (4) until neither removes anything
//   (6) "[fwd:" ... "]" around the whole: strip both, back to (2)
//
// Literals ("re", "fw", "fwd", "[fwd:", "(fwd)") match ASCII-case-insensitively, as ABNF
// strings do. The comparison key is the base subject under i;unicode-casemap (RFC 5051),
// which RFC 5256 §3 names for SORT: Darius uses ICU's NFKC_Casefold (mailbox::foldForSearch),
// the same folding SEARCH compares with.
//
// reply_or_forward is RFC 5256 §2.1's (THREAD) "a message is considered to be a reply or
// forward if the base subject extraction rules ... remove any of the following: a subj-refwd,
// a "(fwd)" subj-trailer, or a subj-fwd-hdr and subj-fwd-trl".
//
// Ownership: results own their strings. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace darius::imapd::sort {

struct BaseSubject {
  std::string text;        // the base subject, UTF-8, case preserved
  std::string key;         // text case-folded (i;unicode-casemap): compare these
  bool reply_or_forward = false;
};

// `raw_subject_field_value`: the Subject field's value as in the message (folded, encoded
// words and all); an absent Subject is the empty string (RFC 5256 §3).
BaseSubject baseSubject(std::string_view raw_subject_field_value);

// Steps (2)-(6) alone, on text already decoded and white-space-normalised; for tests and for
// callers that have the decoded subject already.
BaseSubject extractBaseSubject(std::string normalised_utf8);

}  // namespace darius::imapd::sort
