#include "mailbox/change_log_segment.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace darius::mailbox::internal {

using base::Result;
using base::Status;

namespace {

constexpr size_t kDigits = 20;
constexpr std::string_view kSuffix = ".log";
constexpr std::string_view kTempSuffix = ".tmp";
constexpr size_t kChunk = 64 * 1024;

}  // namespace

std::string segmentFileName(uint64_t first_seq) {
  char buf[kDigits + 1];
  std::snprintf(buf, sizeof buf, "%020llu", static_cast<unsigned long long>(first_seq));
  return std::string(buf) + std::string(kSuffix);
}

std::optional<uint64_t> parseSegmentFileName(std::string_view name) {
  if (name.size() != kDigits + kSuffix.size() || name.substr(kDigits) != kSuffix) {
    return std::nullopt;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < kDigits; ++i) {
    char c = name[i];
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  if (v == 0) return std::nullopt;
  return v;
}

bool isTempFileName(std::string_view name) {
  return name.size() > kTempSuffix.size() &&
         name.substr(name.size() - kTempSuffix.size()) == kTempSuffix &&
         parseSegmentFileName(name.substr(0, name.size() - kTempSuffix.size())).has_value();
}

Result<std::vector<uint64_t>> listSegments(io::Env& env, const std::string& dir) {
  DARIUS_ASSIGN_OR_RETURN(std::vector<std::string> names, env.listDir(dir));
  std::vector<uint64_t> out;
  for (const std::string& n : names) {
    if (auto seq = parseSegmentFileName(n)) out.push_back(*seq);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status segmentCorruption(uint64_t first_seq, uint64_t offset, std::string_view what) {
  return Status::corruption("change log segment " + segmentFileName(first_seq) + " offset " +
                            std::to_string(offset) + ": " + std::string(what));
}

Result<SegmentFile> SegmentFile::open(const std::string& path) {
  DARIUS_ASSIGN_OR_RETURN(io::UniqueFd fd, io::openFile(path, O_RDONLY));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return Status::fromErrno(errno, "fstat " + path);
  return SegmentFile(std::move(fd), path, st.st_ino);
}

Result<uint64_t> SegmentFile::size() const {
  struct stat st;
  if (::fstat(fd_.get(), &st) != 0) return Status::fromErrno(errno, "fstat " + path_);
  return static_cast<uint64_t>(st.st_size);
}

Result<bool> SegmentFile::stillAtPath() const {
  struct stat st;
  if (::stat(path_.c_str(), &st) != 0) {
    if (errno == ENOENT) return false;
    return Status::fromErrno(errno, "stat " + path_);
  }
  return st.st_ino == inode_;
}

Result<HeaderDecode> SegmentFile::header() {
  DARIUS_RETURN_IF_ERROR(fill(0, kMaxSegmentHeaderSize));
  return decodeSegmentHeader(buffered(0));
}

std::string_view SegmentFile::buffered(uint64_t offset) const {
  if (offset < buf_off_ || offset > buf_off_ + buf_.size()) return {};
  return std::string_view(buf_).substr(static_cast<size_t>(offset - buf_off_));
}

Status SegmentFile::fill(uint64_t offset, size_t need) {
  DARIUS_ASSIGN_OR_RETURN(buf_, io::preadUpTo(fd_.get(), offset, std::max(need, kChunk)));
  buf_off_ = offset;
  return Status::ok();
}

Result<FrameDecode> SegmentFile::frameAt(uint64_t offset) {
  FrameDecode d = decodeFrame(buffered(offset));
  if (d.state == DecodeState::kValid) return d;
  // The buffer may end mid-frame, or predate a write that has completed since: read again,
  // enough for the whole frame when its length is known.
  size_t need = d.state == DecodeState::kIncomplete && d.size > 0 ? d.size : kRecordFrameSize;
  DARIUS_RETURN_IF_ERROR(fill(offset, need));
  d = decodeFrame(buffered(offset));
  if (d.state == DecodeState::kIncomplete && d.size > buf_.size()) {
    // The first read learnt the length only now; one more read for the whole frame.
    DARIUS_RETURN_IF_ERROR(fill(offset, d.size));
    d = decodeFrame(buffered(offset));
  }
  return d;
}

Result<std::string> SegmentFile::readAt(uint64_t offset, size_t length) const {
  return io::preadUpTo(fd_.get(), offset, length);
}

}  // namespace darius::mailbox::internal
