// Fuzzes the CRLF line / counted literal framing: arbitrary bytes, arbitrary chunking and
// literal requests. Invariants: no crash, memory bounded by the limits, every line returned is
// within max_line and contains no LF.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lib/net/line_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  darius::net::ReaderLimits limits{.max_line = static_cast<size_t>(1 + data[0] % 64),
                                   .max_literal = static_cast<uint64_t>(data[1] % 128)};
  darius::net::LineReader r(limits);
  std::string_view in(reinterpret_cast<const char*>(data) + 2, size - 2);
  size_t pos = 0;
  while (pos < in.size()) {
    size_t chunk = 1 + static_cast<unsigned char>(in[pos]) % 17;
    r.feed(in.substr(pos, chunk));
    pos += chunk;
    for (int i = 0; i < 8; ++i) {
      if (i % 3 == 2) {
        auto b = r.takeBytes(static_cast<unsigned char>(in[pos % in.size()]) % 160);
        if (b.ok() && *b && (*b)->size() > limits.max_literal) std::abort();
        continue;
      }
      auto line = r.takeLine();
      if (!line.ok() || !*line) break;
      if ((*line)->size() > limits.max_line) std::abort();
      if ((*line)->find('\n') != std::string::npos) std::abort();
    }
    // Buffered bytes stay bounded: at most one overlong line's worth plus one chunk.
    if (r.buffered() > limits.max_line + 2 + 17 + limits.max_literal + 160) std::abort();
  }
  return 0;
}
