#include "imapd/fetch/fetch_binary.h"

#include <strings.h>

#include <optional>

#include "lib/mime/content_fields.h"
#include "lib/mime/header.h"

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

int base64Value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
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

bool isTextPart(std::string_view header_block) {
  std::optional<std::string> v = fieldValue(header_block, "Content-Type");
  if (!v) return true;
  std::optional<mime::ContentType> ct = mime::parseContentType(*v);
  return !ct || iequals(ct->type, "text");
}

std::string decodeBase64(std::string_view in) {
  std::string out;
  out.reserve(in.size() / 4 * 3 + 3);
  uint32_t acc = 0;
  int bits = 0;
  for (char ch : in) {
    if (ch == '=') {
      // Padding ends a group; what follows (another encoding glued on) starts afresh.
      acc = 0;
      bits = 0;
      continue;
    }
    int v = base64Value(static_cast<unsigned char>(ch));
    if (v < 0) continue;
    acc = ((acc << 6) | static_cast<uint32_t>(v)) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

std::string decodeQuotedPrintable(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  size_t i = 0;
  while (i < in.size()) {
    // One line at a time, so trailing white space (added by transports) can be dropped.
    size_t eol = in.find('\n', i);
    size_t next = eol == std::string_view::npos ? in.size() : eol + 1;
    size_t end = eol == std::string_view::npos ? in.size() : eol;
    if (end > i && in[end - 1] == '\r') --end;
    bool had_line_end = eol != std::string_view::npos;
    while (end > i && (in[end - 1] == ' ' || in[end - 1] == '\t')) --end;
    bool soft = false;
    for (size_t k = i; k < end; ++k) {
      char c = in[k];
      if (c != '=') {
        out.push_back(c);
      } else if (k + 1 == end) {
        soft = true;  // "=" at the end of a line: a soft line break
      } else if (k + 2 < end && hexValue(in[k + 1]) >= 0 && hexValue(in[k + 2]) >= 0) {
        out.push_back(static_cast<char>(hexValue(in[k + 1]) * 16 + hexValue(in[k + 2])));
        k += 2;
      } else {
        out.push_back(c);  // a stray "=" is kept (RFC 2045 §6.7, note 4)
      }
    }
    if (had_line_end && !soft) out += "\r\n";
    i = next;
  }
  return out;
}

std::string crlfLineEnds(std::string in) {
  size_t lone = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\n' && (i == 0 || in[i - 1] != '\r')) ++lone;
  }
  if (lone == 0) return in;
  std::string out;
  out.reserve(in.size() + lone);
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\n' && (i == 0 || in[i - 1] != '\r')) out.push_back('\r');
    out.push_back(in[i]);
  }
  return out;
}

Result<std::string> decodeLeaf(std::string_view header_block, std::string_view body) {
  switch (cteOf(header_block)) {
    case Cte::kIdentity:
      return std::string(body);
    case Cte::kBase64: {
      std::string out = decodeBase64(body);
      return isTextPart(header_block) ? crlfLineEnds(std::move(out)) : out;
    }
    case Cte::kQuotedPrintable: {
      std::string out = decodeQuotedPrintable(body);
      return isTextPart(header_block) ? crlfLineEnds(std::move(out)) : out;
    }
    case Cte::kUnknown:
      break;
  }
  return Status::notSupported("unknown Content-Transfer-Encoding");
}

bool needsLiteral8(std::string_view data) { return data.find('\0') != std::string_view::npos; }

}  // namespace darius::imapd::fetch
