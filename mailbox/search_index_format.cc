#include "mailbox/search_index_format.h"

#include <algorithm>
#include <cstring>

#include <zlib.h>

#include "mailbox/index_format.h"  // crc32Of

namespace darius::mailbox {
namespace {

using base::Code;
using base::Result;
using base::Status;

constexpr std::string_view kMagic = "DSRCHIDX";
constexpr uint32_t kSegMagic = 0x47455344;  // "DSEG"
constexpr uint32_t kEndMagic = 0x444E4544;  // "DEND"

void put32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void put64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
uint32_t get32(std::string_view s, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<unsigned char>(s[at + i])} << (8 * i);
  return v;
}
uint64_t get64(std::string_view s, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(s[at + i])} << (8 * i);
  return v;
}

// CRC-32 of `a` then `b`, given the CRC of `a`.
uint32_t crc32Combine(uint32_t crc_a, std::string_view b) {
  uLong c = crc_a;
  while (!b.empty()) {
    auto n = static_cast<uInt>(std::min<size_t>(b.size(), 1u << 30));
    c = crc32(c, reinterpret_cast<const Bytef*>(b.data()), n);
    b.remove_prefix(n);
  }
  return static_cast<uint32_t>(c);
}

Status corrupt(const std::string& what) {
  return Status(Code::kCorruption, "search index segment: " + what);
}

}  // namespace

void appendPostingVarint(std::string& out, uint32_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::string encodeSearchHeader(uint32_t uidvalidity) {
  std::string out(kMagic);
  out.push_back(static_cast<char>(kSearchIndexMajor & 0xFF));
  out.push_back(static_cast<char>(kSearchIndexMajor >> 8));
  out.push_back(static_cast<char>(kSearchIndexMinor & 0xFF));
  out.push_back(static_cast<char>(kSearchIndexMinor >> 8));
  put32(out, kSearchHeaderSize);
  put32(out, uidvalidity);
  put64(out, 0);
  put32(out, crc32Of(out));
  return out;
}

Result<uint32_t> decodeSearchHeader(std::string_view in) {
  if (in.size() < kSearchHeaderSize || in.substr(0, 8) != kMagic) {
    return Status(Code::kCorruption, "search index: bad magic");
  }
  if (crc32Of(in.substr(0, 28)) != get32(in, 28)) {
    return Status(Code::kCorruption, "search index: header CRC mismatch");
  }
  uint16_t major = static_cast<uint16_t>(static_cast<unsigned char>(in[8]) |
                                         (static_cast<unsigned char>(in[9]) << 8));
  if (major != kSearchIndexMajor) {
    return Status(Code::kNotSupported, "search index: major version " + std::to_string(major));
  }
  if (get32(in, 12) != kSearchHeaderSize) return Status(Code::kCorruption, "search index: header size");
  return get32(in, 16);
}

void SegmentBuilder::add(uint32_t uid, std::span<const TaggedGram> grams) {
  const uint64_t doc = uids_.size();
  uids_.push_back(uid);
  for (TaggedGram g : grams) {
    entries_.push_back((uint64_t{gramOf(g)} << 32) | (doc << 1) | (inBody(g) ? 1 : 0));
  }
}

std::string encodeSegment(uint32_t first_uid, uint32_t last_uid,
                          const std::vector<uint32_t>& uids, const std::vector<GramList>& lists) {
  std::string grams, fences, postings;
  for (size_t i = 0; i < lists.size(); ++i) {
    put32(grams, lists[i].gram);
    put32(grams, static_cast<uint32_t>(postings.size()));
    put32(grams, crc32Of(lists[i].bytes));
    postings += lists[i].bytes;
  }
  for (size_t b = 0; b * kGramBlock < lists.size(); ++b) {
    put32(fences, lists[b * kGramBlock].gram);
    size_t from = b * kGramBlock * kGramEntrySize;
    put32(fences, crc32Of(std::string_view(grams).substr(from, kGramBlock * kGramEntrySize)));
  }
  std::string out;
  const uint64_t size = kSearchSegmentHeaderSize + 4 * uids.size() + grams.size() + fences.size() +
                        postings.size() + kSearchSegmentFooterSize;
  out.reserve(size);
  put32(out, kSegMagic);
  put32(out, first_uid);
  put32(out, last_uid);
  put32(out, static_cast<uint32_t>(uids.size()));
  put32(out, static_cast<uint32_t>(lists.size()));
  put32(out, static_cast<uint32_t>(postings.size()));
  put64(out, size);
  for (uint32_t u : uids) put32(out, u);
  // The footer CRC covers what parse() reads at every open: header, documents, fences.
  uint32_t crc = crc32Of(out);
  crc = crc32Combine(crc, fences);
  out += grams;
  out += fences;
  out += postings;
  put32(out, crc);
  put32(out, kEndMagic);
  return out;
}

std::string SegmentBuilder::finish(uint32_t first_uid, uint32_t last_uid) {
  // Documents were added in order, so a stable sort by gram alone leaves each list in
  // document order: two counting passes of 12 bits each (the gram is 24), linear where a
  // comparison sort was a fifth of the indexing time.
  {
    std::vector<uint64_t> tmp(entries_.size());
    for (int shift : {32, 44}) {
      std::vector<size_t> start(4097, 0);
      for (uint64_t e : entries_) ++start[((e >> shift) & 0xFFF) + 1];
      for (size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
      for (uint64_t e : entries_) tmp[start[(e >> shift) & 0xFFF]++] = e;
      entries_.swap(tmp);
    }
  }
  std::vector<GramList> lists;
  uint64_t prev_gram = UINT64_MAX;
  int64_t prev_doc = -1;
  for (uint64_t e : entries_) {
    uint64_t gram = e >> 32;
    auto doc = static_cast<int64_t>((e & 0xFFFFFFFFu) >> 1);
    if (gram != prev_gram) {
      lists.push_back({static_cast<uint32_t>(gram), {}});
      prev_gram = gram;
      prev_doc = -1;
    }
    appendPostingVarint(lists.back().bytes, static_cast<uint32_t>(((doc - prev_doc) << 1) |
                                                                  static_cast<int64_t>(e & 1)));
    prev_doc = doc;
  }
  std::string out = encodeSegment(first_uid, last_uid, uids_, lists);
  uids_.clear();
  entries_.clear();
  entries_.shrink_to_fit();
  return out;
}

Result<SegmentView> SegmentView::parse(std::string_view in) {
  if (in.size() < kSearchSegmentHeaderSize + kSearchSegmentFooterSize) return corrupt("truncated header");
  if (get32(in, 0) != kSegMagic) return corrupt("bad magic");
  SegmentView v;
  v.first_uid_ = get32(in, 4);
  v.last_uid_ = get32(in, 8);
  v.doc_count_ = get32(in, 12);
  v.gram_count_ = get32(in, 16);
  v.fence_count_ = (v.gram_count_ + kGramBlock - 1) / kGramBlock;
  const uint64_t postings_size = get32(in, 20);
  v.size_ = get64(in, 24);
  const uint64_t want = kSearchSegmentHeaderSize + 4 * uint64_t{v.doc_count_} +
                        kGramEntrySize * uint64_t{v.gram_count_} + 8 * uint64_t{v.fence_count_} +
                        postings_size + kSearchSegmentFooterSize;
  if (v.size_ != want) return corrupt("sizes disagree");
  if (v.size_ > in.size()) return corrupt("truncated");
  if (v.first_uid_ == 0 || v.last_uid_ < v.first_uid_) return corrupt("bad UID range");
  const size_t body = static_cast<size_t>(v.size_) - kSearchSegmentFooterSize;
  if (get32(in, body + 4) != kEndMagic) return corrupt("bad end magic");
  size_t at = kSearchSegmentHeaderSize;
  v.docs_ = in.substr(at, 4 * v.doc_count_);
  at += v.docs_.size();
  v.grams_ = in.substr(at, kGramEntrySize * v.gram_count_);
  at += v.grams_.size();
  v.fences_ = in.substr(at, 8 * v.fence_count_);
  at += v.fences_.size();
  v.postings_ = in.substr(at, static_cast<size_t>(postings_size));
  uint32_t crc = crc32Of(in.substr(0, kSearchSegmentHeaderSize + v.docs_.size()));
  if (crc32Combine(crc, v.fences_) != get32(in, body)) return corrupt("CRC mismatch");
  uint32_t prev = 0;
  for (size_t i = 0; i < v.doc_count_; ++i) {
    uint32_t u = get32(v.docs_, 4 * i);
    if (u <= prev || u < v.first_uid_ || u > v.last_uid_) return corrupt("documents out of order");
    prev = u;
  }
  for (size_t f = 1; f < v.fence_count_; ++f) {
    if (get32(v.fences_, 8 * f) <= get32(v.fences_, 8 * (f - 1))) return corrupt("fences out of order");
  }
  if (v.gram_count_ == 0 && postings_size != 0) return corrupt("postings without grams");
  return v;
}

Status SegmentView::checkBlock(size_t b) const {
  size_t from = b * kGramBlock * kGramEntrySize;
  std::string_view block = grams_.substr(from, kGramBlock * kGramEntrySize);
  if (crc32Of(block) != get32(fences_, 8 * b + 4)) return corrupt("gram table CRC mismatch");
  // Inside a checked block: grams ascending from the fence's, offsets ascending within P.
  const size_t first = b * kGramBlock, n = block.size() / kGramEntrySize;
  if (n == 0 || gramAt(first) != get32(fences_, 8 * b)) return corrupt("fence disagrees");
  for (size_t i = first; i < first + n; ++i) {
    uint32_t g = gramAt(i);
    uint32_t off = get32(grams_, kGramEntrySize * i + 4);
    if (g > 0xFFFFFF || (i > first && g <= gramAt(i - 1))) return corrupt("grams out of order");
    if (off > postings_.size() || (i > first && off < get32(grams_, kGramEntrySize * (i - 1) + 4))) {
      return corrupt("bad postings offset");
    }
  }
  return Status::ok();
}

Status SegmentView::checkAllBlocks() const {
  for (size_t b = 0; b < fence_count_; ++b) DARIUS_RETURN_IF_ERROR(checkBlock(b));
  return Status::ok();
}

uint32_t SegmentView::documentUid(size_t i) const { return get32(docs_, 4 * i); }

std::optional<size_t> SegmentView::findDocument(uint32_t uid) const {
  size_t lo = 0, hi = doc_count_;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint32_t u = documentUid(mid);
    if (u == uid) return mid;
    if (u < uid) lo = mid + 1;
    else hi = mid;
  }
  return std::nullopt;
}

uint32_t SegmentView::gramAt(size_t i) const { return get32(grams_, kGramEntrySize * i); }

PostingList SegmentView::postingsAt(size_t i) const {
  uint32_t off = get32(grams_, kGramEntrySize * i + 4);
  uint32_t end = i + 1 < gram_count_ ? get32(grams_, kGramEntrySize * (i + 1) + 4)
                                     : static_cast<uint32_t>(postings_.size());
  PostingList l;
  l.crc = get32(grams_, kGramEntrySize * i + 8);
  // Offsets were checked within their block; across a block boundary, or unchecked, an
  // inverted range is an empty list, whose CRC then fails.
  if (off <= end && end <= postings_.size()) l.bytes = postings_.substr(off, end - off);
  return l;
}

Result<std::optional<PostingList>> SegmentView::postings(uint32_t gram) const {
  if (fence_count_ == 0) return std::optional<PostingList>();
  // The block: the last fence at or below the gram.
  size_t lo = 0, hi = fence_count_;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (get32(fences_, 8 * mid) <= gram) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return std::optional<PostingList>();
  const size_t b = lo - 1;
  DARIUS_RETURN_IF_ERROR(checkBlock(b));
  size_t first = b * kGramBlock, last = std::min(gram_count_, first + kGramBlock);
  while (first < last) {
    size_t mid = first + (last - first) / 2;
    uint32_t g = gramAt(mid);
    if (g == gram) return std::optional<PostingList>(postingsAt(mid));
    if (g < gram) first = mid + 1;
    else last = mid;
  }
  return std::optional<PostingList>();
}

Result<std::vector<uint32_t>> SegmentView::decode(const PostingList& list, bool body_only) const {
  return decodeImpl(list, body_only ? 1 : 0);
}

Result<std::vector<uint32_t>> SegmentView::decodeTagged(const PostingList& list) const {
  return decodeImpl(list, 2);
}

// mode 0: every document; 1: those with the body bit; 2: every document, tagged.
Result<std::vector<uint32_t>> SegmentView::decodeImpl(const PostingList& list, int mode) const {
  std::string_view p = list.bytes;
  if (p.empty() || crc32Of(p) != list.crc) return corrupt("postings CRC mismatch");
  std::vector<uint32_t> out;
  int64_t doc = -1;
  size_t i = 0;
  while (i < p.size()) {
    uint64_t v = 0;
    int shift = 0;
    for (;;) {
      if (i >= p.size() || shift > 28) return corrupt("bad varint");
      auto b = static_cast<unsigned char>(p[i++]);
      v |= uint64_t{b & 0x7Fu} << shift;
      if ((b & 0x80) == 0) break;
      shift += 7;
    }
    int64_t d = static_cast<int64_t>(v >> 1);
    if (d < 1) return corrupt("bad document step");
    doc += d;
    if (doc >= static_cast<int64_t>(doc_count_)) return corrupt("document out of range");
    if (mode == 2) out.push_back(static_cast<uint32_t>(doc << 1) | static_cast<uint32_t>(v & 1));
    else if (mode == 0 || (v & 1) != 0) out.push_back(static_cast<uint32_t>(doc));
  }
  return out;
}

}  // namespace darius::mailbox
