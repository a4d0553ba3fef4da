// ListPattern: one canonical LIST pattern (RFC 9051 §6.3.9, RFC 3501 §6.3.8) matched against
// the external names one user sees (UTF-8, mailbox/namespace.h): "*" matches any run of
// characters, "%" any run without the hierarchy separator. Matching is bytewise; since both
// sides are UTF-8 and UTF-8 is self-synchronising, a literal run can only line up with whole
// characters, so no wildcard ever matches half of one.
//
// INBOX is case-insensitive (RFC 9051 §5.1): in a name whose first level is INBOX, the five
// bytes of "INBOX" match the pattern's bytes without regard to ASCII case, so "inbox",
// "Inbox/%" and "in*" find INBOX; every other byte compares exactly.
//
// Cost is bounded whatever the client sends: consecutive wildcards collapse ("**%" is "*"),
// matching simulates the pattern as an automaton (never backtracks), so one match costs at
// most name length × pattern length steps, and a pattern with more literal bytes than the
// longest possible name is known to match nothing without looking at any name.
//
// Ownership: a value. Thread-safety: immutable after construction; share freely.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace darius::imapd {

class ListPattern {
 public:
  // `pattern` is the canonical pattern (reference applied, UTF-8); `separator` the
  // namespace's hierarchy separator; names longer than `max_name_bytes` cannot exist.
  ListPattern(std::string_view pattern, char separator, size_t max_name_bytes = 8192);

  // Whether `name` (an external name) matches the whole pattern.
  bool matches(std::string_view name) const;
  // Whether some name that starts with `prefix` (`prefix` itself included) could match:
  // lets the caller skip parts of the hierarchy no match can lie in.
  bool couldMatchWithPrefix(std::string_view prefix) const;

  // The hierarchy level every match lies strictly below: the literal text before the last
  // separator that precedes the first wildcard ("Other Users/bob" for
  // "Other Users/bob/%"); empty when matches may start anywhere.
  const std::string& fixedParent() const { return fixed_parent_; }
  // The collapsed pattern.
  const std::string& text() const { return pattern_; }
  // True when no name at all can match (too many literal bytes).
  bool matchesNothing() const { return impossible_; }

 private:
  // Runs the automaton over `name`; true when it ends in the accepting state (`whole`) or in
  // any live state (prefix mode).
  bool run(std::string_view name, bool whole) const;

  std::string pattern_;
  std::string fixed_parent_;
  char separator_;
  bool impossible_ = false;
};

// True when `name`'s first hierarchy level is exactly "INBOX" (how Namespace spells the
// user's INBOX), so that its first five bytes match case-insensitively.
bool isInboxRooted(std::string_view name, char separator);

}  // namespace darius::imapd
