// The persistent search index of one mailbox (the store's "squat" file, DESIGN.md §3;
// docs/formats/search-index.md): which messages may contain a string, so that SEARCH TEXT and
// BODY open only the candidates' files instead of every message's.
//
// Correctness: the index only narrows. A message is ruled out only when it was indexed (its
// UID is a document of a segment) and lacks a trigram of the needle; every other message —
// newer than the index, unreadable when it was indexed, or in a mailbox whose index is
// missing or damaged — stays a candidate, and every candidate is checked against the message
// by the caller. So a result is always what a full scan gives, whatever state the file is in.
// Messages never change under a UID, so a segment, once written, stays true until UIDVALIDITY
// changes (the file header names the UIDVALIDITY it was built for).
//
// Writing: updateSearchIndex() appends a segment for the messages above the last indexed UID,
// under `darius.search.lock` (writers only; readers take no lock), without fsync: the index is
// derived data, and a segment torn by a crash fails its CRC and is rebuilt. A file is never
// truncated or shrunk in place (readers map it): a damaged tail, a merge of segments, or the
// removal of expunged documents writes a new file and renames it over the old one.
//
// Ownership: a SearchIndex owns its mapping (of the file as it was when opened; a later
// append or rename does not disturb it). Thread-safety: an open SearchIndex is immutable and
// may be queried from several threads; updateSearchIndex() may run in several threads or
// processes at once (the lock serialises them).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/io/mapped_file.h"
#include "mailbox/search_index_format.h"

namespace darius::mailbox {

class Mailbox;

// Which messages may hold one needle (see SearchIndex::filter). It points into the index
// that made it, which must outlive it.
class SearchFilter {
 public:
  // Whether the message `uid` may hold the needle: false only for an indexed message that
  // cannot.
  bool mayMatch(uint32_t uid) const;
  // The positions in `uids` (ascending) of those that may hold the needle: mayMatch() of each,
  // in one merge over the index's documents, so a SEARCH over 100,000 messages visits the
  // few hundred candidates instead of every record.
  std::vector<size_t> candidatesAmong(std::span<const uint32_t> uids) const;
  // A filter that rules nothing out (needle too short, or no usable index).
  bool passesAll() const { return all_; }

 private:
  friend class SearchIndex;
  struct Part {
    uint32_t first_uid = 0, last_uid = 0;
    const SegmentView* segment = nullptr;
    std::vector<bool> candidate;  // by document index
  };
  bool all_ = true;
  std::vector<Part> parts_;
};

struct SearchIndexStats {
  size_t segments = 0;
  size_t documents = 0;
  uint64_t bytes = 0;      // of the file
  uint32_t last_uid = 0;   // every UID at or below it was indexed (or was unreadable)
  bool damaged = false;    // something after the valid segments, or a bad header
};

class SearchIndex {
 public:
  // Maps the index of the mailbox in `dir` built for `uidvalidity`. Never fails: a missing
  // file gives an empty index, a bad one an index of the segments before the damage (none for
  // a bad header or another UIDVALIDITY) with stats().damaged set.
  static std::unique_ptr<SearchIndex> open(const std::string& dir, uint32_t uidvalidity);

  uint32_t lastUid() const { return stats_.last_uid; }
  // damaged also turns true when a query found a posting list that does not decode.
  SearchIndexStats stats() const {
    SearchIndexStats s = stats_;
    s.damaged = s.damaged || decode_failed_;
    return s;
  }
  // Whether a query found a gram table block or a posting list that fails its check (the file
  // was damaged after it was opened, or where open() does not look): the caller discards the
  // file (discardSearchIndex) so that it is rebuilt.
  bool queryFoundDamage() const { return decode_failed_; }
  // The bytes of the valid segments, as they follow the file header (kept by a rewrite).
  std::string_view validSegmentBytes() const;

  // The filter for a needle folded with foldForSearch(): TEXT when `body_only` is false, BODY
  // when true. A posting list that does not decode marks the index damaged and gives a filter
  // that passes all (the caller scans; the next update rebuilds).
  SearchFilter filter(std::string_view folded, bool body_only) const;

  // For `darius search check`: the segments, and each document of segment `i` with its grams
  // (ascending, tagged as messageGrams() returns them). Memory: 4 bytes per posting.
  size_t segmentCount() const { return segments_.size(); }
  const SegmentView& segment(size_t i) const { return segments_[i]; }
  base::Result<std::vector<std::vector<TaggedGram>>> segmentDocuments(size_t i) const;

 private:
  SearchIndex() = default;
  io::MappedFile map_;
  std::vector<SegmentView> segments_;
  SearchIndexStats stats_;
  mutable bool decode_failed_ = false;
};

struct SearchUpdateOptions {
  // A segment is written once its postings reach this many (memory: 8 bytes each).
  size_t max_postings = 8u << 20;
  // Above this many segments they are merged into one.
  size_t max_segments = 8;
  // Expunged documents above this share (of at least min_dead documents) are dropped by a
  // rewrite.
  double dead_ratio = 0.25;
  size_t min_dead = 256;
  // Wait for another writer (true) or give up with kLocked (false).
  bool wait = true;
  // Called after each message with (done, total); may be empty.
  std::function<void(size_t, size_t)> progress;
  // Asked after each message; true: what is indexed so far is written as a segment and the
  // update ends there (SearchUpdate::stopped), so dariusd's shutdown does not wait for a big
  // mailbox. May be empty.
  std::function<bool()> stop;
};

struct SearchUpdate {
  size_t indexed = 0;      // messages added
  size_t unreadable = 0;   // messages whose file could not be read (left as candidates)
  uint64_t bytes_read = 0; // of message files
  bool rebuilt = false;    // the old file was unusable and was replaced
  bool merged = false;     // segments were merged or expunged documents dropped
  bool stopped = false;    // SearchUpdateOptions::stop ended it before every message was indexed
  SearchIndexStats after;
};

// Brings the index of `mailbox` up to date with its records (as of its last refresh()): the
// live messages above the last indexed UID are indexed, a damaged or foreign file replaced.
base::Result<SearchUpdate> updateSearchIndex(const Mailbox& mailbox,
                                             const SearchUpdateOptions& options = {});

// Removes the index of the mailbox in `dir` (reconstruct, and `darius search index --rebuild`).
base::Status removeSearchIndex(const std::string& dir);

// Removes a damaged index unless a writer holds it (then kLocked: that writer, or the next
// query that finds the damage, deals with it).
base::Status discardSearchIndex(const std::string& dir);

}  // namespace darius::mailbox
