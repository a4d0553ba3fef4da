// Fuzzes how lmtpd receives a message body (lmtpd/message_data.h): the first byte picks DATA
// lines or BDAT chunks (and BINARYMIME), the rest is the wire. Invariants: no crash; a
// message without a problem is the prefix plus exactly size() octets, never over the limit,
// and outside BINARYMIME holds no NUL and only CRLF line ends; extractMessageId() returns one
// unfolded line of at most 998 octets.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lmtpd/message_data.h"

namespace {

using darius::lmtpd::MessageData;

constexpr std::string_view kPrefix = "Return-Path: <>\r\n";
constexpr uint64_t kMaxSize = 4096;
constexpr size_t kMaxLine = 200;

void checkCanonical(std::string_view m) {
  for (size_t i = 0; i < m.size(); ++i) {
    if (m[i] == '\0') std::abort();
    if (m[i] == '\r' && (i + 1 >= m.size() || m[i + 1] != '\n')) std::abort();
    if (m[i] == '\n' && (i == 0 || m[i - 1] != '\r')) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  const bool chunks = mode & 1;
  const bool binary = chunks && (mode & 2);
  MessageData m(kMaxSize, binary, std::string(kPrefix));
  if (chunks) {
    // Chunk borders at every (mode >> 2) + 1 bytes, so CRLF pairs get split.
    const size_t step = (mode >> 2) + 1;
    for (size_t i = 0; i < in.size(); i += step) m.addChunk(in.substr(i, step));
    m.finishChunks();
  } else {
    size_t start = 0;
    while (start < in.size()) {
      size_t lf = in.find('\n', start);
      if (lf == std::string_view::npos) break;  // no final dot: the connection was lost
      std::string_view line = in.substr(start, lf - start);
      start = lf + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.size() > kMaxLine) {
        m.addOverlongLine();
      } else if (m.addDataLine(line)) {
        break;
      }
    }
  }
  if (m.problem() == MessageData::Problem::kNone) {
    std::string_view bytes = m.bytes();
    if (bytes.substr(0, kPrefix.size()) != kPrefix) std::abort();
    if (bytes.size() != kPrefix.size() + m.size()) std::abort();
    if (m.size() > kMaxSize) std::abort();
    if (!binary) checkCanonical(bytes);
  } else if (!m.bytes().empty()) {
    std::abort();  // a failed message frees its buffer
  }
  std::string id = darius::lmtpd::extractMessageId(in);
  if (id.size() > 998 || id.find_first_of("\r\n") != std::string::npos) std::abort();
  return 0;
}
