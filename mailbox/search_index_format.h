// The on-disk form of a mailbox's search index, `darius.search` (docs/formats/search-index.md):
// a file header, then segments appended one after another, each self-checking.
//
//   file header (32 bytes): magic "DSRCHIDX", u16 major (1), u16 minor (0), u32 header size
//     (32), u32 UIDVALIDITY of the mailbox indexed, 8 reserved bytes (zero), u32 CRC-32 of
//     bytes 0..27.
//   segment: a 32-byte segment header — u32 magic "DSEG", u32 first UID, u32 last UID (every
//     message of the mailbox in [first, last] when the segment was built is a document of it or
//     could not be read), u32 document count D, u32 gram count G, u32 postings size P, u64
//     segment size — then the documents (D u32 UIDs, ascending), the gram table (G entries of
//     u32 gram, u32 offset of its postings, u32 CRC-32 of its postings; grams strictly
//     ascending), the fences (one per block of 256 gram entries: u32 first gram of the block,
//     u32 CRC-32 of the block's entries), the postings, and an 8-byte footer: u32 CRC-32 of the
//     header, documents and fences, u32 magic "DEND".
//   postings of a gram: for each document holding it, in document order, one LEB128 varint
//     (d << 1 | body), where d is the document's index minus the previous one's (the first
//     counts from -1, so d >= 1) and body says the gram occurs in a text BODY searches.
//
// Why three levels of CRC: the file may be damaged while a server has it open, so nothing
// read from it is trusted without a check at the time of use, and a check must cost far less
// than a SEARCH. parse() checks the footer CRC (header, documents, fences: a few bytes per
// document and per 256 grams); a lookup checks the one block of the gram table it reads;
// decode() checks the list it decodes.
//
// All integers are little-endian. Every read is bounds-checked: a segment that fails any check
// is kCorruption (never a crash), and the index treats it and what follows as absent.
//
// Ownership: SegmentView borrows the bytes it was parsed from (a mapping). SegmentBuilder owns
// its buffers. Thread-safety: a SegmentView is immutable; a builder is used by one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "mailbox/search_grams.h"

namespace darius::mailbox {

inline constexpr std::string_view kSearchIndexFileName = "darius.search";
inline constexpr std::string_view kSearchIndexLockName = "darius.search.lock";
inline constexpr size_t kSearchHeaderSize = 32;
inline constexpr size_t kSearchSegmentHeaderSize = 32;
inline constexpr size_t kSearchSegmentFooterSize = 8;
inline constexpr uint16_t kSearchIndexMajor = 1;
inline constexpr uint16_t kSearchIndexMinor = 0;
inline constexpr size_t kGramEntrySize = 12;
inline constexpr size_t kGramBlock = 256;  // gram entries per fence

// The path of one of the index's files (kSearchIndexFileName, kSearchIndexLockName, ...) in
// the mailbox directory `dir`.
inline std::string searchIndexFilePath(const std::string& dir, std::string_view name) {
  return dir + "/" + std::string(name);
}

std::string encodeSearchHeader(uint32_t uidvalidity);
// The UIDVALIDITY the file was built for; kCorruption for a bad magic or CRC, kNotSupported
// for another major version.
base::Result<uint32_t> decodeSearchHeader(std::string_view bytes);

// Appends one LEB128 varint of a postings list ((d << 1 | body), see the top of this file):
// the builder here and the in-place update of search_index_update.cc write lists alike.
void appendPostingVarint(std::string& out, uint32_t v);

// One gram's encoded postings, for encodeSegment().
struct GramList {
  uint32_t gram = 0;
  std::string bytes;
};

// A whole segment from its documents and its lists (grams strictly ascending, each list
// non-empty, its document indices within `uids`).
std::string encodeSegment(uint32_t first_uid, uint32_t last_uid,
                          const std::vector<uint32_t>& uids, const std::vector<GramList>& lists);

// Collects documents (in ascending UID order) and writes one segment.
class SegmentBuilder {
 public:
  void add(uint32_t uid, std::span<const TaggedGram> grams);
  size_t documents() const { return uids_.size(); }
  // Postings collected so far (a memory measure: 8 bytes each until finish()).
  size_t postings() const { return entries_.size(); }
  // The segment covering [first_uid, last_uid]; the builder is empty afterwards.
  std::string finish(uint32_t first_uid, uint32_t last_uid);

 private:
  std::vector<uint32_t> uids_;
  std::vector<uint64_t> entries_;  // gram << 32 | document index << 1 | body
};

// One gram's postings, with the CRC its table entry gives them.
struct PostingList {
  std::string_view bytes;
  uint32_t crc = 0;
};

class SegmentView {
 public:
  // Parses and checks the segment at the start of `bytes` (which may run on past it): sizes,
  // footer, the footer CRC, documents and fences in order. kCorruption for any failure.
  static base::Result<SegmentView> parse(std::string_view bytes);

  uint32_t firstUid() const { return first_uid_; }
  uint32_t lastUid() const { return last_uid_; }
  uint64_t size() const { return size_; }
  size_t documentCount() const { return doc_count_; }
  uint32_t documentUid(size_t i) const;
  // The index of the document for `uid`, or nullopt.
  std::optional<size_t> findDocument(uint32_t uid) const;
  // The postings of `gram` (nullopt when no document has it), after checking the block of the
  // gram table that was read; kCorruption when it fails.
  base::Result<std::optional<PostingList>> postings(uint32_t gram) const;
  // Decodes postings into document indices, keeping only those with the body bit when
  // `body_only`; kCorruption on a CRC mismatch, a bad varint or an index out of range.
  base::Result<std::vector<uint32_t>> decode(const PostingList& list, bool body_only) const;
  // The same, each entry document index << 1 | body bit.
  base::Result<std::vector<uint32_t>> decodeTagged(const PostingList& list) const;

  // Every entry in gram order, for merging and checking: checkAllBlocks() first, then
  // gramAt() and postingsAt() read without further checks (decode still checks each list).
  base::Status checkAllBlocks() const;
  size_t gramCount() const { return gram_count_; }
  uint32_t gramAt(size_t i) const;
  PostingList postingsAt(size_t i) const;

 private:
  base::Status checkBlock(size_t block) const;
  base::Result<std::vector<uint32_t>> decodeImpl(const PostingList& list, int mode) const;

  std::string_view docs_, grams_, fences_, postings_;
  uint32_t first_uid_ = 0, last_uid_ = 0;
  size_t doc_count_ = 0, gram_count_ = 0, fence_count_ = 0;
  uint64_t size_ = 0;
};

}  // namespace darius::mailbox
