// The message body of an LMTP transaction as it arrives — DATA lines (RFC 5321 §4.5.2, the
// dot transparency) or BDAT chunks (RFC 3030) — turned into the canonical bytes the store
// keeps: CRLF line ends (a bare LF or bare CR becomes CRLF; not for BINARYMIME, whose bytes
// are kept as sent), bounded in size, with the problems that fail the message recorded rather
// than acted on, so the session can still read to the end of the data and then answer every
// recipient (RFC 2033 §4.2).
//
// Also the one header field delivery needs before storing: the Message-ID (RFC 5322 §3.6.4),
// for duplicate suppression.
//
// No I/O: the session feeds lines and chunks; unit tests and the fuzzer feed bytes.
// Ownership: owns the message buffer. Thread-safety: none; one per transaction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace darius::lmtpd {

class MessageData {
 public:
  // What fails the message; the first problem found is kept.
  enum class Problem : uint8_t {
    kNone,
    kTooBig,       // over max_size octets: 552 5.3.4 (RFC 1870 §6, RFC 3463)
    kLineTooLong,  // a DATA line over the line limit: 554 5.6.0
    kNul,          // a NUL octet outside BINARYMIME (RFC 2045 §2.7-2.8): 554 5.6.0
  };

  // `binary`: BODY=BINARYMIME — bytes are stored as sent and NUL is allowed. `prefix` (the
  // trace fields) starts the message and does not count against `max_size`.
  MessageData(uint64_t max_size, bool binary, std::string prefix = {});

  // DATA: one line as the line reader returned it (line end removed). True when it was the
  // terminating "." — nothing is added then. A leading "." is removed (RFC 5321 §4.5.2).
  bool addDataLine(std::string_view line);
  // DATA: the line reader skipped a line over its limit.
  void addOverlongLine();
  // BDAT: the octets of one chunk, in order. Line ends are normalised across chunk borders.
  void addChunk(std::string_view bytes);
  // BDAT LAST: a CR left pending at the end of the last chunk becomes CRLF.
  void finishChunks();

  Problem problem() const { return problem_; }
  // Octets of the canonical message so far, prefix excluded (counted on over the limit).
  uint64_t size() const { return size_; }
  // The prefix and the canonical message; emptied once the message has failed.
  std::string& bytes() { return bytes_; }

 private:
  void fail(Problem p);  // keeps the first problem and frees the buffer
  void append(std::string_view s);
  void appendLine(std::string_view line);  // content without its line end, then CRLF

  const uint64_t max_size_;
  const bool binary_;
  std::string bytes_;
  uint64_t size_ = 0;
  Problem problem_ = Problem::kNone;
  bool pending_cr_ = false;  // BDAT: the last chunk ended in CR
};

// The Message-ID field body of `message`'s header, unfolded and trimmed ("<id@host>"), or ""
// when there is none (or it is empty, absurdly long, or holds control characters). Only the
// header block is read.
std::string extractMessageId(std::string_view message);

}  // namespace darius::lmtpd
