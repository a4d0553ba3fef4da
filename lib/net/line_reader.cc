#include "lib/net/line_reader.h"

#include <algorithm>

namespace darius::net {

using base::Result;
using base::Status;

void LineReader::compact() {
  // Amortised O(1): move the tail down only once the dead prefix dominates the buffer.
  if (pos_ > 0 && (pos_ >= buf_.size() || pos_ > 4096) && pos_ * 2 >= buf_.size()) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  // A big literal (an APPEND) leaves a big capacity behind; an idle session must not keep it.
  if (buf_.empty() && buf_.capacity() > 64 * 1024) std::string().swap(buf_);
}

Result<std::optional<std::string>> LineReader::takeLine() {
  for (;;) {
    size_t lf = buf_.find('\n', pos_ + scanned_);
    if (skipping_) {
      if (lf == std::string::npos) {
        buf_.clear();  // all of it belongs to the overlong line
        pos_ = scanned_ = 0;
        return std::optional<std::string>();
      }
      pos_ = lf + 1;
      scanned_ = 0;
      skipping_ = false;
      compact();
      continue;
    }
    if (lf == std::string::npos) {
      scanned_ = buf_.size() - pos_;
      // +1 leaves room for a CR whose LF has not arrived yet.
      if (scanned_ > limits_.max_line + 1) {
        overlong_head_.assign(buf_, pos_, kOverlongHead);
        skipping_ = true;
        buf_.clear();
        pos_ = scanned_ = 0;
        return Status::tooBig("line exceeds " + std::to_string(limits_.max_line) + " bytes");
      }
      compact();
      return std::optional<std::string>();
    }
    size_t end = lf;
    if (end > pos_ && buf_[end - 1] == '\r') --end;
    size_t len = end - pos_;
    if (len > limits_.max_line) {
      overlong_head_.assign(buf_, pos_, std::min(len, kOverlongHead));
      pos_ = lf + 1;
      scanned_ = 0;
      compact();
      return Status::tooBig("line exceeds " + std::to_string(limits_.max_line) + " bytes");
    }
    std::string line = buf_.substr(pos_, len);
    pos_ = lf + 1;
    scanned_ = 0;
    compact();
    return std::optional<std::string>(std::move(line));
  }
}

Result<std::optional<std::string>> LineReader::takeBytes(uint64_t n) {
  if (n > limits_.max_literal) {
    return Status::tooBig("literal of " + std::to_string(n) + " bytes exceeds " +
                          std::to_string(limits_.max_literal));
  }
  if (buffered() < n) return std::optional<std::string>();
  std::string out = buf_.substr(pos_, n);
  pos_ += n;
  scanned_ = 0;
  compact();
  return std::optional<std::string>(std::move(out));
}

}  // namespace darius::net
