// HttpRequestHead: the request line and headers of an HTTP/1.x request, parsed from lines the
// LineReader cut (CRLF removed), for the metrics endpoint. Only what a scraper sends is
// accepted: GET/HEAD with an origin-form target; bodies are not read. Limits on header count
// are explicit; the line length is bounded by the reader.
//
// Ownership: plain values. Thread-safety: none needed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::server {

struct HttpRequestHead {
  std::string method;
  std::string path;   // without the query string
  std::string query;
  int minor_version = 1;
};

class HttpRequestParser {
 public:
  explicit HttpRequestParser(size_t max_headers = 64) : max_headers_(max_headers) {}

  // Feeds one line. Returns the head once the empty line after the headers arrives, nullopt
  // while more lines are needed, or kInvalid / kTooBig for a malformed or oversized request.
  base::Result<std::optional<HttpRequestHead>> feedLine(std::string_view line);

 private:
  size_t max_headers_;
  size_t headers_ = 0;
  bool have_request_line_ = false;
  HttpRequestHead head_;
};

}  // namespace darius::server
