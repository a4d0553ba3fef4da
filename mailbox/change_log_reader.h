// ChangeLogReader: reads the change log (change_log.h, docs/formats/changelog.md) from a
// sequence number on, across segments, in any process. It takes no lock and writes nothing,
// so it never slows a writer down; it reads with pread, never mmap (a writer may replace a
// segment whose tail a crash tore; see change_log.h).
//
// What next() returns: whole, CRC-valid records in strictly increasing, gap-free sequence
// order; at the current end of the log it returns nullopt ("no more yet": call again after
// the next change, see change_watcher.h). An incomplete or bad record at the tail of the
// last segment reads as the end, whether a writer is still writing it or a crash tore it (the
// next writer cuts it off). Records of a batch whose fsync has not finished can be returned;
// a crash may then take them back and reuse their sequence numbers (change_log.h).
// kCorruption, naming segment and offset, for damage in the middle: a bad record in a segment
// that a later one follows, a bad record followed by an intact one, a wrong sequence number,
// a CRC-valid record whose payload does not parse. kNotFound when the wanted sequence number
// was pruned (replication then starts over from a full sync).
//
// Ownership: owns its open segment fd. Thread-safety: one reader is not synchronised; use
// one per thread (they are cheap).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/base/result.h"
#include "lib/base/status.h"
#include "lib/io/env.h"
#include "mailbox/change_log_format.h"

namespace darius::mailbox {

namespace internal {
class SegmentFile;
}  // namespace internal

class ChangeLogReader {
 public:
  // `env` (nullptr: Env::posix()) is used to list the directory only; reads are preads.
  explicit ChangeLogReader(std::string dir, io::Env* env = nullptr);
  ~ChangeLogReader();
  ChangeLogReader(ChangeLogReader&&) noexcept;
  ChangeLogReader& operator=(ChangeLogReader&&) noexcept;

  // Positions the reader so that next() returns the record with sequence number `seq` first
  // (once it exists). kInvalid for 0; kNotFound if the directory is missing or `seq` is older
  // than the oldest segment.
  base::Status readFrom(uint64_t seq);

  // The next record, or nullopt at the current end. kInvalid before readFrom().
  base::Result<std::optional<ChangeRecord>> next();

  // next() until the end of the log or `max` records.
  base::Result<std::vector<ChangeRecord>> readAvailable(size_t max = SIZE_MAX);

  // The sequence number next() will return next.
  uint64_t position() const { return target_ > expect_ ? target_ : expect_; }

  // The first sequence number still in the log in `dir` (1 for an empty log).
  static base::Result<uint64_t> oldestSeq(const std::string& dir, io::Env* env = nullptr);

 private:
  std::string segmentPath(uint64_t first_seq) const;
  base::Result<bool> exists(uint64_t first_seq) const;
  // Opens seg_first_ and reads its header; false when it is not (fully) there yet.
  base::Result<bool> openSegment();

  std::string dir_;
  io::Env* env_;
  uint64_t seg_first_ = 0;  // segment being read; 0 until readFrom()
  std::unique_ptr<internal::SegmentFile> seg_;
  bool header_read_ = false;
  uint64_t offset_ = 0;  // of the next record in seg_
  uint64_t expect_ = 0;  // its sequence number
  uint64_t target_ = 0;  // records below this are skipped
};

}  // namespace darius::mailbox
