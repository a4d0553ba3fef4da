// Internal to the change log (change_log.cc, change_log_reader.cc): segment file names and a
// buffered pread reader of one segment file. Not for other modules.
//
// Segments are read with pread, never mmap'd: a writer's recovery replaces a segment whose
// tail a crash tore (change_log.h), and a reader must never touch pages beyond the end of
// what it opened (DESIGN.md §8). A SegmentFile keeps the inode it opened; stillAtPath() tells
// whether the name now points at another file, so the caller reopens by name.
//
// Ownership: a SegmentFile owns its fd. Thread-safety: one object is not synchronised.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/io/env.h"
#include "lib/io/fd.h"
#include "mailbox/change_log_format.h"

namespace darius::mailbox::internal {

// "00000000000000000042.log": 20 decimal digits sort bytewise in numeric order.
std::string segmentFileName(uint64_t first_seq);
std::optional<uint64_t> parseSegmentFileName(std::string_view name);
bool isTempFileName(std::string_view name);  // "<segment>.tmp", left by a cut recovery
// First sequence numbers of the segments in `dir`, ascending.
base::Result<std::vector<uint64_t>> listSegments(io::Env& env, const std::string& dir);
// "segment 00000000000000000042.log offset 96: <what>" as a kCorruption.
base::Status segmentCorruption(uint64_t first_seq, uint64_t offset, std::string_view what);

class SegmentFile {
 public:
  // kNotFound if the file does not exist.
  static base::Result<SegmentFile> open(const std::string& path);

  const std::string& path() const { return path_; }
  ino_t inode() const { return inode_; }
  base::Result<uint64_t> size() const;
  // true while `path` still names the inode this object has open.
  base::Result<bool> stillAtPath() const;

  base::Result<HeaderDecode> header();
  // The frame at `offset`, read fresh from the file unless the buffer already holds a valid
  // one there. The body view points into the buffer and lives until the next call.
  base::Result<FrameDecode> frameAt(uint64_t offset);
  // Up to `length` bytes at `offset` (fewer only at end of file).
  base::Result<std::string> readAt(uint64_t offset, size_t length) const;

 private:
  SegmentFile(io::UniqueFd fd, std::string path, ino_t inode)
      : fd_(std::move(fd)), path_(std::move(path)), inode_(inode) {}
  std::string_view buffered(uint64_t offset) const;
  base::Status fill(uint64_t offset, size_t need);

  io::UniqueFd fd_;
  std::string path_;
  ino_t inode_ = 0;
  std::string buf_;  // file bytes [buf_off_, buf_off_ + buf_.size())
  uint64_t buf_off_ = 0;
};

}  // namespace darius::mailbox::internal
