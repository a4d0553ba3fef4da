#include "imapd/fetch/fetch_binary.h"

#include <strings.h>

#include <optional>

#include "lib/mime/header.h"
#include "lib/mime/transfer_encoding.h"

namespace darius::imapd::fetch {

using base::Result;
using base::Status;

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

bool isWsp(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The mechanism token of a Content-Transfer-Encoding value: RFC 2045 §6.1 allows comments
// and folding white space around it ("base64 (by Mailer)").
std::string_view mechanism(std::string_view v) {
  size_t i = 0;
  int depth = 0;
  while (i < v.size()) {
    if (v[i] == '(') {
      ++depth;
    } else if (v[i] == ')' && depth > 0) {
      --depth;
    } else if (depth == 0 && !isWsp(v[i])) {
      break;
    }
    ++i;
  }
  size_t end = i;
  while (end < v.size() && !isWsp(v[end]) && v[end] != '(' && v[end] != ';') ++end;
  return v.substr(i, end - i);
}

// The first field of that name in the block, unfolded; nullopt when there is none.
std::optional<std::string> fieldValue(std::string_view block, std::string_view name) {
  mime::Header h(block);
  return h.value(name);
}

}  // namespace

Cte cteOf(std::string_view header_block) {
  std::optional<std::string> v = fieldValue(header_block, "Content-Transfer-Encoding");
  if (!v) return Cte::kIdentity;
  std::string_view m = mechanism(*v);
  if (m.empty() || iequals(m, "7bit") || iequals(m, "8bit") || iequals(m, "binary")) {
    return Cte::kIdentity;
  }
  if (iequals(m, "base64")) return Cte::kBase64;
  if (iequals(m, "quoted-printable")) return Cte::kQuotedPrintable;
  return Cte::kUnknown;
}

Result<std::string> decodeLeaf(std::string_view header_block, std::string_view body) {
  switch (cteOf(header_block)) {
    case Cte::kIdentity:
      return std::string(body);
    case Cte::kBase64:
      return mime::decodeBase64Body(body);
    case Cte::kQuotedPrintable:
      return mime::decodeQuotedPrintable(body);
    case Cte::kUnknown:
      break;
  }
  return Status::notSupported("unknown Content-Transfer-Encoding");
}

bool needsLiteral8(std::string_view data) { return data.find('\0') != std::string_view::npos; }

}  // namespace darius::imapd::fetch
