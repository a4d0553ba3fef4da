#include "lmtpd/message_data.h"

#include <utility>

#include "lib/base/ascii.h"
#include "lib/base/byte_set.h"

namespace darius::lmtpd {

namespace {

// Bytes that need attention in a line or chunk; everything else is copied in runs.
constexpr base::ByteSet kLineSpecials(std::string_view("\r\0", 2));
constexpr base::ByteSet kChunkSpecials(std::string_view("\r\n\0", 3));

// The longest Message-ID kept for duplicate suppression: RFC 5322 §2.1.1's line limit. A
// longer one is not an id any MTA would have generated; such messages are not suppressed.
constexpr size_t kMaxMessageId = 998;

bool equalsLower(std::string_view text, std::string_view lower_name) {
  if (text.size() != lower_name.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (base::toLowerAsciiChar(text[i]) != lower_name[i]) return false;
  }
  return true;
}

bool isWsp(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && isWsp(s.front())) s.remove_prefix(1);
  while (!s.empty() && isWsp(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

void MessageData::fail(Problem p) {
  if (problem_ != Problem::kNone) return;
  problem_ = p;
  std::string().swap(bytes_);  // the memory goes now, not at the end of the transaction
}

MessageData::MessageData(uint64_t max_size, bool binary, std::string prefix)
    : max_size_(max_size), binary_(binary), bytes_(std::move(prefix)) {}

void MessageData::append(std::string_view s) {
  size_ += s.size();
  if (problem_ != Problem::kNone) return;
  if (size_ > max_size_) {
    fail(Problem::kTooBig);
    return;
  }
  bytes_.append(s);
}

void MessageData::appendLine(std::string_view line) {
  // A bare CR inside a line is a line end too: the store keeps CRLF only.
  for (;;) {
    size_t at = kLineSpecials.findIn(line);
    if (at == std::string_view::npos) break;
    append(line.substr(0, at));
    if (line[at] == '\r') {
      append("\r\n");
    } else {
      fail(Problem::kNul);
    }
    line.remove_prefix(at + 1);
  }
  append(line);
  append("\r\n");
}

bool MessageData::addDataLine(std::string_view line) {
  if (line == ".") return true;
  if (!line.empty() && line.front() == '.') line.remove_prefix(1);  // RFC 5321 §4.5.2
  appendLine(line);
  return false;
}

void MessageData::addOverlongLine() { fail(Problem::kLineTooLong); }

void MessageData::addChunk(std::string_view bytes) {
  if (binary_) {
    append(bytes);
    return;
  }
  while (!bytes.empty()) {
    if (pending_cr_) {
      pending_cr_ = false;
      append("\r\n");
      if (bytes.front() == '\n') {
        bytes.remove_prefix(1);
        continue;
      }
    }
    size_t at = kChunkSpecials.findIn(bytes);
    if (at == std::string_view::npos) {
      append(bytes);
      return;
    }
    append(bytes.substr(0, at));
    char c = bytes[at];
    if (c == '\r') {
      pending_cr_ = true;  // CRLF, or a bare CR: the next byte (maybe in the next chunk) tells
    } else if (c == '\n') {
      append("\r\n");
    } else {
      fail(Problem::kNul);
    }
    bytes.remove_prefix(at + 1);
  }
}

void MessageData::finishChunks() {
  if (pending_cr_) {
    pending_cr_ = false;
    append("\r\n");
  }
}

std::string extractMessageId(std::string_view message) {
  std::string value;
  bool in_field = false;
  size_t pos = 0;
  while (pos < message.size()) {
    size_t lf = message.find('\n', pos);
    std::string_view line =
        message.substr(pos, lf == std::string_view::npos ? std::string_view::npos : lf - pos);
    pos = lf == std::string_view::npos ? message.size() : lf + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the end of the header (RFC 5322 §2.1)
    if (isWsp(line.front())) {  // a continuation (RFC 5322 §2.2.3 unfolding)
      if (in_field) {
        value.append(line);
        if (value.size() > kMaxMessageId) return "";
      }
      continue;
    }
    if (in_field) break;  // the field ended; the first Message-ID counts
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (equalsLower(trim(line.substr(0, colon)), "message-id")) {
      in_field = true;
      value.assign(line.substr(colon + 1));
      if (value.size() > kMaxMessageId) return "";
    }
  }
  std::string_view id = trim(value);
  for (char c : id) {
    // Controls (a bare CR or a NUL in a BINARYMIME header) make no sane id: not suppressed.
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) return "";
  }
  return std::string(id);
}

}  // namespace darius::lmtpd
