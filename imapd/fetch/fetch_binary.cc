#include "imapd/fetch/fetch_binary.h"

#include <strings.h>

#include <optional>

#include "lib/mime/content_fields.h"
#include "lib/mime/header.h"
#include "lib/mime/transfer_encoding.h"

namespace darius::imapd::fetch {

using base::Result;
using base::Status;

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
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
  // The rule BODYSTRUCTURE uses (one token, CFWS around it; anything else is no encoding):
  // BINARY may never decode a part that BODYSTRUCTURE calls 7BIT.
  std::optional<std::string> token = mime::parseTransferEncoding(*v);
  if (!token) return Cte::kIdentity;
  std::string_view m = *token;
  if (iequals(m, "7bit") || iequals(m, "8bit") || iequals(m, "binary")) {
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
