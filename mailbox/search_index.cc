#include "mailbox/search_index.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "lib/io/fd.h"
#include "lib/io/file_lock.h"
#include "mailbox/mailbox.h"

namespace darius::mailbox {
namespace {

using base::Code;
using base::Result;
using base::Status;

// Sorted intersection of `a` and `b` into `a`.
void intersect(std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> out;
  out.reserve(std::min(a.size(), b.size()));
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  a.swap(out);
}

}  // namespace

bool SearchFilter::mayMatch(uint32_t uid) const {
  if (all_) return true;
  // Parts are few (at most max_segments + the appends since the last merge): a linear walk.
  for (const Part& p : parts_) {
    if (uid < p.first_uid || uid > p.last_uid) continue;
    std::optional<size_t> doc = p.segment->findDocument(uid);
    if (!doc) return true;  // unreadable when indexed: a candidate
    return p.candidate[*doc];
  }
  return true;  // not indexed
}

std::vector<size_t> SearchFilter::candidatesAmong(std::span<const uint32_t> uids) const {
  std::vector<size_t> out;
  // Parts in UID order, their ranges disjoint: a merge. Anything else (never written so, but
  // the file is not trusted that far) goes through mayMatch() one UID at a time.
  bool ordered = true;
  for (size_t k = 1; k < parts_.size(); ++k) {
    if (parts_[k].first_uid <= parts_[k - 1].last_uid) ordered = false;
  }
  if (all_ || !ordered) {
    for (size_t i = 0; i < uids.size(); ++i) {
      if (mayMatch(uids[i])) out.push_back(i);
    }
    return out;
  }
  size_t p = 0, doc = 0;
  for (size_t i = 0; i < uids.size(); ++i) {
    const uint32_t uid = uids[i];
    while (p < parts_.size() && parts_[p].last_uid < uid) {
      ++p;
      doc = 0;
    }
    if (p == parts_.size() || uid < parts_[p].first_uid) {
      out.push_back(i);  // not indexed
      continue;
    }
    const Part& part = parts_[p];
    const size_t docs = part.segment->documentCount();
    while (doc < docs && part.segment->documentUid(doc) < uid) ++doc;
    if (doc == docs || part.segment->documentUid(doc) != uid || part.candidate[doc]) {
      out.push_back(i);  // unreadable when indexed, or a candidate
    }
  }
  return out;
}

std::unique_ptr<SearchIndex> SearchIndex::open(const std::string& dir, uint32_t uidvalidity) {
  std::unique_ptr<SearchIndex> index(new SearchIndex());
  auto fd = io::openFile(searchIndexFilePath(dir, kSearchIndexFileName), O_RDONLY);
  if (!fd.ok()) {
    // Missing is the normal state of a mailbox never indexed; anything else is damage.
    index->stats_.damaged = fd.status().code() != Code::kNotFound;
    return index;
  }
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0 || st.st_size < static_cast<off_t>(kSearchHeaderSize)) {
    index->stats_.damaged = true;
    return index;
  }
  auto mapped = io::MappedFile::map(fd->get(), static_cast<size_t>(st.st_size), false);
  if (!mapped.ok()) {
    index->stats_.damaged = true;
    return index;
  }
  index->map_ = std::move(*mapped);
  std::string_view bytes = index->map_.view();
  index->stats_.bytes = bytes.size();
  auto header = decodeSearchHeader(bytes);
  if (!header.ok() || *header != uidvalidity) {
    index->stats_.damaged = true;
    return index;
  }
  size_t at = kSearchHeaderSize;
  uint32_t last = 0;
  while (at < bytes.size()) {
    auto seg = SegmentView::parse(bytes.substr(at));
    if (!seg.ok() || seg->firstUid() <= last) break;
    last = seg->lastUid();
    index->stats_.documents += seg->documentCount();
    index->segments_.push_back(*seg);
    at += static_cast<size_t>(seg->size());
  }
  index->stats_.segments = index->segments_.size();
  index->stats_.last_uid = last;
  index->stats_.damaged = at != bytes.size();
  return index;
}

SearchFilter SearchIndex::filter(std::string_view folded, bool body_only) const {
  SearchFilter f;
  std::vector<uint32_t> grams = needleGrams(folded);
  if (grams.empty() || segments_.empty()) return f;
  f.all_ = false;
  for (const SegmentView& seg : segments_) {
    SearchFilter::Part part;
    part.first_uid = seg.firstUid();
    part.last_uid = seg.lastUid();
    part.segment = &seg;
    part.candidate.assign(seg.documentCount(), false);
    // The rarest gram first (the shortest list), so the candidate set starts small.
    std::vector<PostingList> lists;
    bool missing = false;
    for (uint32_t g : grams) {
      auto p = seg.postings(g);
      if (!p.ok()) {
        decode_failed_ = true;
        return SearchFilter();
      }
      if (!*p) {
        missing = true;
        break;
      }
      lists.push_back(**p);
    }
    if (!missing) {
      std::sort(lists.begin(), lists.end(), [](const PostingList& a, const PostingList& b) {
        return a.bytes.size() < b.bytes.size();
      });
      std::vector<uint32_t> docs;
      for (size_t i = 0; i < lists.size(); ++i) {
        auto d = seg.decode(lists[i], body_only);
        if (!d.ok()) {
          decode_failed_ = true;
          return SearchFilter();
        }
        if (i == 0) docs = std::move(*d);
        else intersect(docs, *d);
        if (docs.empty()) break;
      }
      for (uint32_t d : docs) part.candidate[d] = true;
    }
    f.parts_.push_back(std::move(part));
  }
  return f;
}

std::string_view SearchIndex::validSegmentBytes() const {
  uint64_t size = 0;
  for (const SegmentView& seg : segments_) size += seg.size();
  if (size == 0) return {};
  return map_.view().substr(kSearchHeaderSize, static_cast<size_t>(size));
}

Result<std::vector<std::vector<TaggedGram>>> SearchIndex::segmentDocuments(size_t i) const {
  const SegmentView& seg = segments_.at(i);
  std::vector<std::vector<TaggedGram>> docs(seg.documentCount());
  DARIUS_RETURN_IF_ERROR(seg.checkAllBlocks());
  for (size_t g = 0; g < seg.gramCount(); ++g) {
    DARIUS_ASSIGN_OR_RETURN(std::vector<uint32_t> entries, seg.decodeTagged(seg.postingsAt(g)));
    for (uint32_t e : entries) docs[e >> 1].push_back((seg.gramAt(g) << 1) | (e & 1));
  }
  return docs;
}

}  // namespace darius::mailbox
