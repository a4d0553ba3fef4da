// SequenceSet: the typed value of an IMAP sequence-set (RFC 9051 §9), the argument of FETCH,
// STORE, COPY, MOVE, SEARCH, UID EXPUNGE and the sets servers send in COPYUID (RFC 4315) and
// ESEARCH (RFC 4731):
//
//   sequence-set = (seq-number / seq-range) ["," sequence-set]
//   seq-range    = seq-number ":" seq-number    ; either order: 4:2 is 2:4
//   seq-number   = nz-number / "*"              ; "*" is the largest number in use
//   sequence-set =/ seq-last-command            ; "$", RFC 5182 (SEARCHRES)
//
// The set keeps what is known at parse time in canonical form: the ranges of plain numbers
// sorted and merged, so membership is a binary search and formatting gives the shortest
// ascending form servers emit; what depends on "*" kept symbolically, resolved against the
// current maximum (message count or UIDNEXT-1) only when the set is used, because "*" moves
// as the mailbox changes between parse and execution; and "$" as its own marker, to be
// replaced by the saved SEARCH result (RFC 5182 §2.1), which may be a set of sequence numbers
// or of UIDs depending on the command that saved it.
//
// Every "n:*" means the numbers between n and the maximum m in either order, so all of them
// together are one interval that always contains m: from min(lowest n, m) to max(highest n,
// m). Two anchors (lowest and highest n) are therefore all the set needs to remember about
// "*", however many "n:*" the client sent.
//
// Hostile input: a set has at most SequenceSetOptions::max_ranges elements as written
// (kTooBig past it), parsing is O(n log n) and memory O(n) in the number of elements, never in
// the numbers they span: "1:4294967295" is one range. Zero and numbers above 2^32-1 are
// kInvalid.
//
// Ownership: a value type. Thread-safety: const methods may be called from any thread.
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"

namespace darius::proto {

// An inclusive range of message numbers, first <= last, both >= 1.
struct SeqRange {
  uint32_t first = 0;
  uint32_t last = 0;
  friend bool operator==(const SeqRange&, const SeqRange&) = default;
};

struct SequenceSetOptions {
  // Elements as written ("1,3:5,*" is three). Each costs 8 bytes while parsing.
  size_t max_ranges = 100000;
  // "$" (RFC 5182); a command that cannot take it (or a session that has not advertised
  // SEARCHRES) sets this to false.
  bool allow_last_result = true;
};

class SequenceSet {
 public:
  // The empty set (nothing; "$" resolved against an empty saved result is one).
  SequenceSet() = default;

  // Parses a complete sequence-set, e.g. "1:5,7,9:*" or "$".
  static base::Result<SequenceSet> parse(std::string_view text,
                                         const SequenceSetOptions& options = {});
  // Builds a set from numbers in any order (e.g. the UIDs a COPY copied); zero is kInvalid.
  static base::Result<SequenceSet> fromNumbers(std::vector<uint32_t> numbers);
  // Builds a set from ranges in any order and either direction; zero is kInvalid.
  static base::Result<SequenceSet> fromRanges(std::vector<SeqRange> ranges);
  // The set "$".
  static SequenceSet lastResult();

  // Adds first:last (either order) in O(ranges). kInvalid for zero.
  base::Status add(uint32_t first, uint32_t last);

  // Nothing at all: no numbers, no "*", no "$".
  bool empty() const { return ranges_.empty() && !star_ && !last_result_; }
  bool hasStar() const { return star_; }
  // "$" is in the set; substituteLastResult() must run before the set is used.
  bool hasLastResult() const { return last_result_; }
  // The plain-number ranges, sorted and merged (without the "*" part).
  const std::vector<SeqRange>& ranges() const { return ranges_; }

  // This set with "$" replaced by `saved` (the SEARCH result kept by RFC 5182 SAVE); a set
  // without "$" is returned unchanged. `saved` must not contain "$" itself.
  SequenceSet substituteLastResult(const SequenceSet& saved) const;

  // All members, "*" resolved to `max`, sorted and merged. With max == 0 (an empty mailbox)
  // "*" alone stands for nothing and "n:*" for 1:n; commands for which "*" in an empty
  // mailbox is an error (RFC 9051 §9, seq-number) check hasStar() first. "$" counts as empty.
  std::vector<SeqRange> resolve(uint32_t max) const;
  // n is a member once "*" is `max`. O(log ranges).
  bool contains(uint32_t n, uint32_t max) const;
  // The number of members (up to 2^32-1) once "*" is `max`.
  uint64_t count(uint32_t max) const;
  // The largest member once "*" is `max`, or 0 for none: a FETCH of sequence numbers is BAD
  // when this exceeds the message count (RFC 9051 §9, seq-number).
  uint32_t largest(uint32_t max) const;

  // Canonical text: ascending merged ranges ("1:3,7"), then the "*" part ("*", "5:*" or
  // "2:*,9:*"), then "$"; "" for the empty set. parse(format()) gives an equal set.
  std::string format() const;

  // The members of one resolution, ascending, without materialising them:
  //   for (uint32_t uid : set.members(uidnext - 1)) ...
  // Memory is O(ranges), whatever the number of members. Iterators point into the Members
  // object and are valid while it lives where it is.
  class Members {
   public:
    class Iterator {
     public:
      using value_type = uint32_t;
      using difference_type = std::ptrdiff_t;
      Iterator() = default;
      uint32_t operator*() const { return value_; }
      Iterator& operator++();
      Iterator operator++(int) {
        Iterator old = *this;
        ++*this;
        return old;
      }
      friend bool operator==(const Iterator& a, const Iterator& b) {
        return a.index_ == b.index_ && a.value_ == b.value_;
      }

     private:
      friend class Members;
      Iterator(const std::vector<SeqRange>* r, size_t index);
      const std::vector<SeqRange>* ranges_ = nullptr;
      size_t index_ = 0;
      uint32_t value_ = 0;
    };
    Iterator begin() const { return Iterator(&ranges_, 0); }
    Iterator end() const { return Iterator(&ranges_, ranges_.size()); }

   private:
    friend class SequenceSet;
    explicit Members(std::vector<SeqRange> r) : ranges_(std::move(r)) {}
    std::vector<SeqRange> ranges_;
  };
  Members members(uint32_t max) const { return Members(resolve(max)); }

  friend bool operator==(const SequenceSet&, const SequenceSet&) = default;

 private:
  // Sorts and merges ranges_ in place.
  void normalize();

  std::vector<SeqRange> ranges_;
  bool star_ = false;         // "*" or some "n:*" was given
  uint32_t star_low_ = 0;     // lowest n of the "n:*" ranges, 0 if there was none
  uint32_t star_high_ = 0;    // highest n of the "n:*" ranges, 0 if there was none
  bool last_result_ = false;  // "$"
};

}  // namespace darius::proto
