// updateSearchIndex() and the rewrites (search_index.h): appending segments for new messages,
// replacing a damaged or foreign file, merging segments and dropping expunged documents.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "lib/io/fd.h"
#include "lib/io/file_lock.h"
#include "lib/io/mapped_file.h"
#include "mailbox/mailbox.h"
#include "mailbox/search_index.h"

namespace darius::mailbox {
namespace {

using base::Code;
using base::Result;
using base::Status;

// Writes `bytes` as the whole new index file: a temporary name, then a rename over the old
// one (readers keep the inode they mapped). No fsync: the index is derived data, and a file
// that a power cut leaves empty or torn fails its header or CRC checks and is rebuilt.
Status replaceFile(const std::string& dir, std::string_view bytes) {
  std::string tmp = searchIndexFilePath(dir, std::string(kSearchIndexFileName) + ".tmp");
  DARIUS_ASSIGN_OR_RETURN(io::UniqueFd fd, io::openFile(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0640));
  DARIUS_RETURN_IF_ERROR(io::writeAll(fd.get(), bytes));
  fd.reset();
  if (::rename(tmp.c_str(), searchIndexFilePath(dir, kSearchIndexFileName).c_str()) != 0) {
    return Status::fromErrno(errno, "rename " + tmp);
  }
  return Status::ok();
}

// One segment made of every document of `segs` whose UID `keep` accepts, covering
// [first, last]: a k-way merge by gram (each gram table is sorted), the documents renumbered.
// Memory: the output plus one decoded list at a time.
Result<std::string> mergeSegments(const std::vector<const SegmentView*>& segs,
                                  const std::function<bool(uint32_t)>& keep, uint32_t first,
                                  uint32_t last) {
  std::vector<std::vector<int64_t>> renumber(segs.size());
  std::vector<uint32_t> uids;
  for (size_t s = 0; s < segs.size(); ++s) {
    renumber[s].assign(segs[s]->documentCount(), -1);
    for (size_t d = 0; d < segs[s]->documentCount(); ++d) {
      uint32_t uid = segs[s]->documentUid(d);
      if (!keep(uid)) continue;
      renumber[s][d] = static_cast<int64_t>(uids.size());
      uids.push_back(uid);
    }
  }
  for (const SegmentView* seg : segs) DARIUS_RETURN_IF_ERROR(seg->checkAllBlocks());
  std::vector<GramList> lists;
  std::vector<size_t> pos(segs.size(), 0);
  for (;;) {
    uint32_t gram = UINT32_MAX;
    for (size_t s = 0; s < segs.size(); ++s) {
      if (pos[s] < segs[s]->gramCount()) gram = std::min(gram, segs[s]->gramAt(pos[s]));
    }
    if (gram == UINT32_MAX) break;
    GramList list{gram, {}};
    int64_t prev = -1;
    for (size_t s = 0; s < segs.size(); ++s) {
      if (pos[s] >= segs[s]->gramCount() || segs[s]->gramAt(pos[s]) != gram) continue;
      DARIUS_ASSIGN_OR_RETURN(std::vector<uint32_t> entries,
                              segs[s]->decodeTagged(segs[s]->postingsAt(pos[s])));
      ++pos[s];
      for (uint32_t e : entries) {
        int64_t doc = renumber[s][e >> 1];
        if (doc < 0) continue;
        appendPostingVarint(list.bytes, static_cast<uint32_t>(((doc - prev) << 1) | (e & 1)));
        prev = doc;
      }
    }
    if (!list.bytes.empty()) lists.push_back(std::move(list));
  }
  return encodeSegment(first, last, uids, lists);
}

struct Work {
  std::vector<IndexRecord> records;  // live, above the last indexed UID
  uint32_t last_uid = 0;             // the highest UID the mailbox has given out
};

Result<Work> pendingWork(const Mailbox& mailbox, uint32_t above) {
  Work w;
  w.last_uid = mailbox.index().uidnext > 0 ? mailbox.index().uidnext - 1 : 0;
  for (size_t i = mailbox.recordCount(); i > 0; --i) {
    DARIUS_ASSIGN_OR_RETURN(IndexRecord r, mailbox.record(i - 1));
    if (r.uid <= above) break;
    if (r.live()) w.records.push_back(r);
  }
  std::reverse(w.records.begin(), w.records.end());
  return w;
}

// The grams of one message file; nullopt when it cannot be read.
std::optional<std::vector<TaggedGram>> gramsOfFile(const std::string& path, uint64_t* bytes) {
  auto fd = io::openFile(path, O_RDONLY);
  if (!fd.ok()) return std::nullopt;
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return std::nullopt;
  if (st.st_size == 0) return std::vector<TaggedGram>{};
  auto m = io::MappedFile::map(fd->get(), static_cast<size_t>(st.st_size), false);
  if (!m.ok()) return std::nullopt;
  *bytes += static_cast<uint64_t>(st.st_size);
  return messageGrams(m->view());
}

}  // namespace

Result<SearchUpdate> updateSearchIndex(const Mailbox& mailbox, const SearchUpdateOptions& opt) {
  const std::string& dir = mailbox.dir();
  const uint32_t uidvalidity = mailbox.index().uidvalidity;
  DARIUS_ASSIGN_OR_RETURN(io::FileLock lock,
                          io::FileLock::acquire(searchIndexFilePath(dir, kSearchIndexLockName),
                                                io::LockMode::kExclusive, opt.wait));
  SearchUpdate result;
  std::unique_ptr<SearchIndex> index = SearchIndex::open(dir, uidvalidity);
  if (index->stats().damaged || index->stats().bytes == 0) {
    // A foreign, damaged or missing file: start again with the valid segments kept (none for a
    // bad header or another UIDVALIDITY).
    result.rebuilt = index->stats().damaged;
    std::string fresh = encodeSearchHeader(uidvalidity);
    fresh += index->validSegmentBytes();
    DARIUS_RETURN_IF_ERROR(replaceFile(dir, fresh));
    index = SearchIndex::open(dir, uidvalidity);
  }
  DARIUS_ASSIGN_OR_RETURN(Work work, pendingWork(mailbox, index->lastUid()));
  if (work.last_uid > index->lastUid()) {
    DARIUS_ASSIGN_OR_RETURN(
        io::UniqueFd out,
        io::openFile(searchIndexFilePath(dir, kSearchIndexFileName), O_WRONLY | O_APPEND));
    SegmentBuilder builder;
    uint32_t first = index->lastUid() + 1;
    uint32_t covered = work.last_uid;  // what the segments written here cover at the end
    size_t done = 0;
    auto flush = [&](uint32_t last) -> Status {
      std::string seg = builder.finish(first, last);
      DARIUS_RETURN_IF_ERROR(io::writeAll(out.get(), seg));
      first = last + 1;
      return Status::ok();
    };
    for (const IndexRecord& r : work.records) {
      auto grams = gramsOfFile(mailbox.messagePath(r.uid), &result.bytes_read);
      if (grams) {
        builder.add(r.uid, *grams);
        ++result.indexed;
      } else {
        ++result.unreadable;
      }
      ++done;
      if (opt.progress) opt.progress(done, work.records.size());
      if (builder.postings() >= opt.max_postings) DARIUS_RETURN_IF_ERROR(flush(r.uid));
      if (opt.stop && done < work.records.size() && opt.stop()) {
        // The last segment covers up to this UID; the rest stays unindexed (candidates) for
        // the next update, and so does the merge below.
        result.stopped = true;
        covered = r.uid;
        break;
      }
    }
    if (first <= covered) DARIUS_RETURN_IF_ERROR(flush(covered));
    index = SearchIndex::open(dir, uidvalidity);
  }
  if (result.stopped) {
    result.after = index->stats();
    return result;
  }
  // Merge when there are too many segments, or drop expunged documents when they are many.
  // The index now covers every UID below uidnext, so its documents beyond the live count are
  // expunged ones: counted from the header in O(1), as this runs after every delivery. (A
  // live message that could not be read is no document, so this errs toward merging later.)
  const IndexHeader& h = mailbox.index();
  const size_t live_count = h.num_records >= h.num_expunged ? h.num_records - h.num_expunged : 0;
  const size_t docs = index->stats().documents;
  const size_t dead = docs > live_count ? docs - live_count : 0;
  bool too_dead = dead >= opt.min_dead && dead >= opt.dead_ratio * static_cast<double>(docs);
  if (index->segmentCount() > opt.max_segments || too_dead) {
    std::vector<uint32_t> live;
    live.reserve(live_count);
    for (size_t i = 0; i < mailbox.recordCount(); ++i) {
      DARIUS_ASSIGN_OR_RETURN(IndexRecord r, mailbox.record(i));
      if (r.live()) live.push_back(r.uid);
    }
    auto isLive = [&](uint32_t uid) { return std::binary_search(live.begin(), live.end(), uid); };
    std::vector<const SegmentView*> segs;
    for (size_t s = 0; s < index->segmentCount(); ++s) segs.push_back(&index->segment(s));
    DARIUS_ASSIGN_OR_RETURN(std::string merged,
                            mergeSegments(segs, isLive, segs.front()->firstUid(),
                                          segs.back()->lastUid()));
    DARIUS_RETURN_IF_ERROR(replaceFile(dir, encodeSearchHeader(uidvalidity) + merged));
    result.merged = true;
    index = SearchIndex::open(dir, uidvalidity);
  }
  result.after = index->stats();
  return result;
}

Status removeSearchIndex(const std::string& dir) {
  for (std::string_view name : {kSearchIndexFileName}) {
    std::string p = searchIndexFilePath(dir, name);
    if (::unlink(p.c_str()) != 0 && errno != ENOENT) return Status::fromErrno(errno, "unlink " + p);
  }
  return Status::ok();
}

}  // namespace darius::mailbox

namespace darius::mailbox {

Status discardSearchIndex(const std::string& dir) {
  DARIUS_ASSIGN_OR_RETURN(io::FileLock lock,
                          io::FileLock::acquire(searchIndexFilePath(dir, kSearchIndexLockName),
                                                io::LockMode::kExclusive, false));
  return removeSearchIndex(dir);
}

}  // namespace darius::mailbox
