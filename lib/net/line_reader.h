// LineReader: the protocol-independent framing of every line-based service (IMAP, POP3, LMTP,
// ManageSieve, HTTP): CRLF-terminated lines and counted literals, cut out of a byte stream with
// explicit limits, so no peer can make the server buffer more than it allows.
//
// It is a pure state machine over bytes (no I/O), so the same code runs under the socket
// Connection, in unit tests and under libFuzzer. A line longer than max_line is reported
// once as kTooBig and then skipped up to its end, so the session can answer BAD and go on.
// Bare LF is accepted as a line end (many real clients send it); the CR is stripped.
//
// Ownership: owns its buffer. Thread-safety: none; one reader belongs to one connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::net {

struct ReaderLimits {
  size_t max_line = 64 * 1024;           // bytes in one line, terminator excluded
  uint64_t max_literal = 64ull << 20;    // bytes in one counted literal
};

class LineReader {
 public:
  explicit LineReader(ReaderLimits limits) : limits_(limits) {}

  // Appends received bytes. The caller keeps feeding only while wantsMore() says so.
  void feed(std::string_view bytes) { buf_.append(bytes.data(), bytes.size()); }

  // A complete line (without its line end), nullopt if more bytes are needed, or kTooBig once
  // per overlong line (whose remaining bytes are then discarded as they arrive).
  base::Result<std::optional<std::string>> takeLine();

  // Exactly n raw bytes (a literal), nullopt if more are needed; kTooBig if n is over the limit
  // (nothing is consumed then: the caller decides whether to skip or drop the connection).
  base::Result<std::optional<std::string>> takeBytes(uint64_t n);

  // The first bytes (up to kOverlongHead) of the last line reported as kTooBig: IMAP takes
  // its tag from them, so a client waiting for that tag gets a tagged BAD instead of hanging.
  static constexpr size_t kOverlongHead = 128;
  std::string_view overlongHead() const { return overlong_head_; }

  // Bytes received but not consumed yet. After STARTTLS this must be zero: anything a client
  // pipelined behind STARTTLS in plaintext is an injection attempt (CVE-2011-0411 class).
  size_t buffered() const { return buf_.size() - pos_; }
  void clear() { buf_.clear(); pos_ = 0; skipping_ = false; }

  // Whether the next takeLine() can only succeed after more input: used to bound reads.
  const ReaderLimits& limits() const { return limits_; }

 private:
  void compact();

  ReaderLimits limits_;
  std::string buf_;
  size_t pos_ = 0;          // start of unconsumed bytes in buf_
  size_t scanned_ = 0;      // bytes after pos_ already known to hold no LF
  bool skipping_ = false;   // discarding the rest of an overlong line
  std::string overlong_head_;
};

}  // namespace darius::net
