// Fuzzes the readers of the persistent search index (disk input, docs/formats/search-index.md):
//  - the bytes as a whole `darius.search` file: SearchIndex::open over a temp directory (with
//    the UIDVALIDITY its header names, so inputs get past that check), a few filters (TEXT and
//    BODY), mayMatch over the indexed range, segmentDocuments of every segment;
//  - the bytes as one segment: SegmentView::parse as they are (every CRC checked), and again
//    with every CRC field recomputed first ("CRC off": the fuzzer sets the footer, fence and
//    posting-list CRCs to match, so mutations reach the structural checks behind them), then
//    postings/decode of a few grams and every entry.
// Anything may be kCorruption; nothing may crash, read out of bounds or allocate more than
// the input justifies (a segment claims D documents and G grams; parse must check those
// against the input's length before anything is sized by them). What parses must be
// consistent: documents ascending within [first, last], decoded indices below D.
//
// Seeds (tests/fuzz/corpus/search_index/): segments and files SegmentBuilder wrote, and the
// golden files of tests/data/formats/search/.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "lib/io/fd.h"
#include "mailbox/search_index.h"
#include "mailbox/search_index_format.h"

using namespace darius::mailbox;

namespace {

uint32_t get32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<unsigned char>(s[at + i])} << (8 * i);
  return v;
}
void set32(std::string& s, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
uint32_t crcOf(std::string_view a, uint32_t c = 0) {
  return static_cast<uint32_t>(
      crc32(c, reinterpret_cast<const Bytef*>(a.data()), static_cast<uInt>(a.size())));
}

// Recomputes every CRC of the segment at the start of `s` whose layout fits in `s`.
void fixCrcs(std::string& s) {
  if (s.size() < kSearchSegmentHeaderSize + kSearchSegmentFooterSize) return;
  const uint64_t d = get32(s, 12), g = get32(s, 16), p = get32(s, 20);
  const uint64_t fences = (g + kGramBlock - 1) / kGramBlock;
  const uint64_t size = kSearchSegmentHeaderSize + 4 * d + kGramEntrySize * g + 8 * fences + p +
                        kSearchSegmentFooterSize;
  if (size > s.size()) return;
  for (int i = 0; i < 8; ++i) s[24 + i] = static_cast<char>((size >> (8 * i)) & 0xFF);
  const size_t grams = kSearchSegmentHeaderSize + 4 * d;
  const size_t fence_at = grams + kGramEntrySize * g, post = fence_at + 8 * fences;
  for (size_t i = 0; i < g; ++i) {
    size_t e = grams + kGramEntrySize * i;
    uint32_t off = get32(s, e + 4);
    uint32_t end = i + 1 < g ? get32(s, e + kGramEntrySize + 4) : static_cast<uint32_t>(p);
    if (off <= end && end <= p) set32(s, e + 8, crcOf(std::string_view(s).substr(post + off, end - off)));
  }
  for (size_t b = 0; b < fences; ++b) {
    size_t from = grams + b * kGramBlock * kGramEntrySize;
    size_t n = std::min<uint64_t>(kGramBlock, g - b * kGramBlock) * kGramEntrySize;
    set32(s, fence_at + 8 * b, get32(s, from));
    set32(s, fence_at + 8 * b + 4, crcOf(std::string_view(s).substr(from, n)));
  }
  std::string_view v(s);
  const size_t body = static_cast<size_t>(size) - kSearchSegmentFooterSize;
  set32(s, body, crcOf(v.substr(fence_at, 8 * fences), crcOf(v.substr(0, grams))));
  set32(s, body + 4, get32(std::string("DEND"), 0));
}

void exerciseSegment(std::string_view bytes) {
  auto seg = SegmentView::parse(bytes);
  if (!seg.ok()) {
    if (seg.status().code() != darius::base::Code::kCorruption) std::abort();
    return;
  }
  if (seg->size() > bytes.size()) std::abort();
  uint32_t prev = 0;
  for (size_t i = 0; i < seg->documentCount(); ++i) {
    uint32_t u = seg->documentUid(i);
    if (u <= prev || u < seg->firstUid() || u > seg->lastUid()) std::abort();
    if (seg->findDocument(u) != i) std::abort();
    prev = u;
  }
  auto check = [&](const PostingList& l) {
    for (bool body : {false, true}) {
      auto d = seg->decode(l, body);
      if (!d.ok()) continue;
      for (uint32_t x : *d) {
        if (x >= seg->documentCount()) std::abort();
      }
    }
    auto t = seg->decodeTagged(l);
    if (t.ok()) {
      for (uint32_t x : *t) {
        if ((x >> 1) >= seg->documentCount()) std::abort();
      }
    }
  };
  // A few grams: the first of each fence's block and some fixed ones.
  for (uint32_t gram : {0u, 0x616263u, 0x656c6cu, 0xFFFFFFu}) {
    auto p = seg->postings(gram);
    if (p.ok() && *p) check(**p);
  }
  if (!seg->checkAllBlocks().ok()) return;
  for (size_t i = 0; i < seg->gramCount(); ++i) check(seg->postingsAt(i));
}

std::string tempDir() {
  static std::string dir = [] {
    char t[] = "/tmp/search_index_fuzz.XXXXXX";
    if (::mkdtemp(t) == nullptr) std::abort();
    return std::string(t);
  }();
  return dir;
}

void exerciseFile(std::string_view bytes) {
  const std::string dir = tempDir();
  {
    auto fd = darius::io::openFile(dir + "/darius.search", O_WRONLY | O_CREAT | O_TRUNC);
    if (!fd.ok() || !darius::io::writeAll(fd->get(), bytes).ok()) std::abort();
  }
  auto uv = decodeSearchHeader(bytes);
  auto index = SearchIndex::open(dir, uv.ok() ? *uv : 1);
  const SearchIndexStats st = index->stats();
  if (st.bytes != bytes.size() && st.bytes != 0) std::abort();
  for (std::string_view needle : {"ab", "abc", "hello", "zebra body", "\xc3\xa9t\xc3\xa9"}) {
    for (bool body : {false, true}) {
      SearchFilter f = index->filter(needle, body);
      for (uint32_t uid : {1u, 2u, 3u, 7u, 100u, st.last_uid}) (void)f.mayMatch(uid);
    }
  }
  for (size_t s = 0; s < index->segmentCount(); ++s) {
    auto docs = index->segmentDocuments(s);
    if (!docs.ok()) continue;
    if (docs->size() != index->segment(s).documentCount()) std::abort();
    for (const auto& grams : *docs) {
      for (size_t i = 1; i < grams.size(); ++i) {
        if (gramOf(grams[i]) <= gramOf(grams[i - 1])) std::abort();
      }
    }
  }
  if (index->validSegmentBytes().size() > bytes.size()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  exerciseFile(in);
  if (in.size() > kSearchHeaderSize && in.substr(0, 8) == "DSRCHIDX") {
    // A file: its first segment as well.
    exerciseSegment(in.substr(kSearchHeaderSize));
    std::string fixed(in.substr(kSearchHeaderSize));
    fixCrcs(fixed);
    exerciseSegment(fixed);
  } else {
    exerciseSegment(in);
    std::string fixed(in);
    fixCrcs(fixed);
    exerciseSegment(fixed);
  }
  return 0;
}
