#include "mailbox/change_log_reader.h"

#include <algorithm>

#include "lib/io/path.h"
#include "mailbox/change_log_segment.h"

namespace darius::mailbox {

using base::Result;
using base::Status;
using internal::segmentCorruption;
using internal::SegmentFile;

ChangeLogReader::ChangeLogReader(std::string dir, io::Env* env)
    : dir_(std::move(dir)), env_(env != nullptr ? env : io::Env::posix()) {}
ChangeLogReader::~ChangeLogReader() = default;
ChangeLogReader::ChangeLogReader(ChangeLogReader&&) noexcept = default;
ChangeLogReader& ChangeLogReader::operator=(ChangeLogReader&&) noexcept = default;

std::string ChangeLogReader::segmentPath(uint64_t first_seq) const {
  return io::joinPath(dir_, internal::segmentFileName(first_seq));
}

Result<bool> ChangeLogReader::exists(uint64_t first_seq) const {
  return env_->fileExists(segmentPath(first_seq));
}

Result<uint64_t> ChangeLogReader::oldestSeq(const std::string& dir, io::Env* env) {
  DARIUS_ASSIGN_OR_RETURN(std::vector<uint64_t> segs,
                          internal::listSegments(env != nullptr ? *env : *io::Env::posix(), dir));
  return segs.empty() ? 1 : segs.front();
}

Status ChangeLogReader::readFrom(uint64_t seq) {
  if (seq == 0) return Status::invalid("change log: sequence numbers start at 1");
  DARIUS_ASSIGN_OR_RETURN(std::vector<uint64_t> segs, internal::listSegments(*env_, dir_));
  if (!segs.empty() && seq < segs.front()) {
    return Status::notFound("change log: sequence number " + std::to_string(seq) +
                            " was pruned; the oldest is " + std::to_string(segs.front()));
  }
  seg_.reset();
  header_read_ = false;
  // The last segment starting at or before `seq` (segment 1, to come, for an empty log).
  auto it = std::upper_bound(segs.begin(), segs.end(), seq);
  seg_first_ = it == segs.begin() ? 1 : *(it - 1);
  expect_ = seg_first_;
  offset_ = 0;
  target_ = seq;
  return Status::ok();
}

Result<bool> ChangeLogReader::openSegment() {
  if (!seg_) {
    Result<SegmentFile> opened = SegmentFile::open(segmentPath(seg_first_));
    if (!opened.ok()) {
      if (!opened.status().isNotFound()) return opened.status();
      if (offset_ != 0) {
        return Status::notFound("change log: segment " + internal::segmentFileName(seg_first_) +
                                " was pruned while being read");
      }
      // Not created yet, unless a later one exists: then it was pruned.
      DARIUS_ASSIGN_OR_RETURN(std::vector<uint64_t> segs, internal::listSegments(*env_, dir_));
      if (!segs.empty() && segs.back() > seg_first_) {
        return Status::notFound("change log: sequence number " + std::to_string(expect_) +
                                " was pruned");
      }
      return false;
    }
    seg_ = std::make_unique<SegmentFile>(std::move(*opened));
  }
  if (header_read_) return true;
  DARIUS_ASSIGN_OR_RETURN(HeaderDecode h, seg_->header());
  DARIUS_ASSIGN_OR_RETURN(uint64_t size, seg_->size());
  if (h.state == DecodeState::kValid) {
    if (h.header.first_seq != seg_first_) {
      return segmentCorruption(
          seg_first_, 0, "header says first sequence number " + std::to_string(h.header.first_seq));
    }
    header_read_ = true;
    offset_ = h.header.header_size;
    expect_ = seg_first_;
    return true;
  }
  if (h.unsupported) return Status::notSupported(seg_->path() + ": " + h.error);
  if (h.state == DecodeState::kBad && size > kSegmentHeaderSize) {
    return segmentCorruption(seg_first_, 0, h.error);
  }
  // Being created, or torn by a crash (the next writer writes it again): reopen next time;
  // unless a later segment exists, which is never made before this one's header is durable.
  DARIUS_ASSIGN_OR_RETURN(std::vector<uint64_t> segs, internal::listSegments(*env_, dir_));
  if (!segs.empty() && segs.back() > seg_first_) {
    return segmentCorruption(seg_first_, 0, "torn header before a later segment");
  }
  seg_.reset();
  return false;
}

Result<std::optional<ChangeRecord>> ChangeLogReader::next() {
  if (seg_first_ == 0) return Status::invalid("change log reader: readFrom() first");
  bool sealed = false;  // a later segment exists, so the bytes of this one are final
  for (;;) {
    DARIUS_ASSIGN_OR_RETURN(bool open, openSegment());
    if (!open) return std::optional<ChangeRecord>();
    DARIUS_ASSIGN_OR_RETURN(FrameDecode f, seg_->frameAt(offset_));
    if (f.state == DecodeState::kValid) {
      if (f.seq != expect_) {
        return segmentCorruption(
            seg_first_, offset_,
            "sequence number " + std::to_string(f.seq) + ", expected " + std::to_string(expect_));
      }
      if (f.seq < target_) {
        offset_ += f.size;
        ++expect_;
        continue;
      }
      Result<ChangeRecord> r = decodeBody(f.body);
      if (!r.ok()) return segmentCorruption(seg_first_, offset_, r.status().message());
      offset_ += f.size;
      ++expect_;
      return std::optional<ChangeRecord>(std::move(*r));
    }
    // No whole record at offset_. Replaced by a writer's cut (same intact prefix): reopen.
    DARIUS_ASSIGN_OR_RETURN(bool same, seg_->stillAtPath());
    if (!same) {
      DARIUS_ASSIGN_OR_RETURN(bool replaced, exists(seg_first_));
      if (replaced) {
        seg_.reset();
        continue;
      }
      // Removed by a prune, so final; a prune keeps a contiguous run up to the last segment.
      bool successor = false;
      if (expect_ != seg_first_) {
        DARIUS_ASSIGN_OR_RETURN(successor, exists(expect_));
      }
      if (!successor) {
        return Status::notFound("change log: records from " + std::to_string(expect_) +
                                " were pruned while being read");
      }
      sealed = true;
    }
    DARIUS_ASSIGN_OR_RETURN(uint64_t size, seg_->size());
    if (!sealed) {
      // Is there a later segment? The usual one is named after our end; when our bytes end in
      // something that is no record, any later one counts (damage hides the real end).
      if (expect_ != seg_first_) {
        DARIUS_ASSIGN_OR_RETURN(sealed, exists(expect_));
      }
      if (!sealed && offset_ != size) {
        DARIUS_ASSIGN_OR_RETURN(std::vector<uint64_t> segs, internal::listSegments(*env_, dir_));
        sealed = !segs.empty() && segs.back() > seg_first_;
      }
      if (sealed) continue;  // read again: the bytes are final now (a write may just have ended)
    }
    if (sealed) {
      std::string why = f.state == DecodeState::kBad ? f.error : "incomplete record";
      if (offset_ == size) {
        bool next_there = false;
        if (expect_ != seg_first_) {
          DARIUS_ASSIGN_OR_RETURN(next_there, exists(expect_));
        }
        if (!next_there) {
          return segmentCorruption(seg_first_, offset_,
                                   "the next segment does not start at " + std::to_string(expect_));
        }
        seg_first_ = expect_;
        seg_.reset();
        header_read_ = false;
        offset_ = 0;
        sealed = false;
        continue;
      }
      return segmentCorruption(seg_first_, offset_, why + " in a sealed segment");
    }
    if (f.state == DecodeState::kBad && f.size > 0) {
      DARIUS_ASSIGN_OR_RETURN(FrameDecode after, seg_->frameAt(offset_ + f.size));
      if (after.state == DecodeState::kValid && after.seq == expect_ + 1) {
        return segmentCorruption(seg_first_, offset_, f.error + " (followed by intact records)");
      }
    }
    return std::optional<ChangeRecord>();
  }
}

Result<std::vector<ChangeRecord>> ChangeLogReader::readAvailable(size_t max) {
  std::vector<ChangeRecord> out;
  while (out.size() < max) {
    DARIUS_ASSIGN_OR_RETURN(std::optional<ChangeRecord> r, next());
    if (!r) break;
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace darius::mailbox
