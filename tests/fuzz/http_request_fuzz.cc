// Fuzzes the metrics endpoint's HTTP request-head parser through the real line framing.
#include <cstdint>
#include <string_view>

#include "lib/net/line_reader.h"
#include "server/http_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  darius::net::LineReader r({.max_line = 256, .max_literal = 0});
  r.feed(std::string_view(reinterpret_cast<const char*>(data), size));
  darius::server::HttpRequestParser p(16);
  for (;;) {
    auto line = r.takeLine();
    if (!line.ok()) continue;
    if (!*line) break;
    auto head = p.feedLine(**line);
    if (!head.ok() || *head) break;
  }
  return 0;
}
