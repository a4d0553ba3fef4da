#include "server/http_request.h"

namespace darius::server {

using base::Result;
using base::Status;

namespace {
bool isToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!(c >= 'A' && c <= 'Z')) return false;
  }
  return true;
}
}  // namespace

Result<std::optional<HttpRequestHead>> HttpRequestParser::feedLine(std::string_view line) {
  if (!have_request_line_) {
    // request-line = method SP request-target SP HTTP-version (RFC 9112 §3)
    size_t sp1 = line.find(' ');
    size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
      return Status::invalid("malformed request line");
    }
    std::string_view method = line.substr(0, sp1);
    std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    std::string_view version = line.substr(sp2 + 1);
    if (!isToken(method)) return Status::invalid("malformed method");
    if (version != "HTTP/1.1" && version != "HTTP/1.0") {
      return Status::notSupported("unsupported HTTP version");
    }
    if (target.empty() || target[0] != '/') return Status::invalid("malformed request target");
    for (unsigned char c : target) {
      if (c <= 0x20 || c >= 0x7f) return Status::invalid("malformed request target");
    }
    head_.method = std::string(method);
    size_t q = target.find('?');
    head_.path = std::string(target.substr(0, q));
    if (q != std::string_view::npos) head_.query = std::string(target.substr(q + 1));
    head_.minor_version = version.back() - '0';
    have_request_line_ = true;
    return std::optional<HttpRequestHead>();
  }
  if (line.empty()) return std::optional<HttpRequestHead>(head_);
  if (++headers_ > max_headers_) return Status::tooBig("too many header fields");
  size_t colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos || line[0] == ' ' || line[0] == '\t') {
    return Status::invalid("malformed header field");
  }
  return std::optional<HttpRequestHead>();
}

}  // namespace darius::server
