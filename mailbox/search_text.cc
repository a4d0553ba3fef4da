#include "mailbox/search_text.h"

#include "mailbox/html_text.h"

#include "lib/base/utf8.h"
#include "lib/mime/address.h"
#include "lib/mime/charset.h"
#include "lib/mime/content_fields.h"
#include "lib/mime/rfc2047.h"
#include "lib/mime/transfer_encoding.h"
#include "lib/proto/chars.h"

namespace darius::mailbox {

using proto::equalsIgnoreCase;

namespace {

std::string trimEncoding(std::string_view e) {
  while (!e.empty() && (e.front() == ' ' || e.front() == '\t')) e.remove_prefix(1);
  while (!e.empty() && (e.back() == ' ' || e.back() == '\t' || e.back() == '\r' || e.back() == '\n')) {
    e.remove_suffix(1);
  }
  return std::string(e);
}

// Leaf parts whose content is text to a reader: text/*, and message/* leaves (delivery and
// disposition reports). RFC 9051 §6.4.4 allows skipping every other terminal type.
bool isSearchableLeaf(const mime::Part& p) {
  if (p.kind != mime::PartKind::kLeaf || p.limited) return false;
  return equalsIgnoreCase(p.type, "text") || equalsIgnoreCase(p.type, "message");
}

// Raw 8-bit header bytes as UTF-8: kept when they are UTF-8 (RFC 6532), else, being
// undeclared, taken as Windows-1252. Either way no byte becomes an ASCII special.
std::string headerBytesAsUtf8(std::string value) {
  if (!base::isValidUtf8(value)) {
    if (auto w = mime::convertToUtf8(value, "windows-1252")) value = std::move(*w);
  }
  return value;
}

}  // namespace

std::string decodeHeaderValue(std::string_view raw) {
  return mime::decodeHeaderText(headerBytesAsUtf8(mime::unfoldValue(raw)));
}

std::string decodedAddressText(std::string_view raw) {
  std::vector<mime::Address> list =
      mime::parseAddressList(headerBytesAsUtf8(mime::unfoldValue(raw)));
  std::string out;
  std::string_view sep;  // what goes before the next item
  for (const mime::Address& a : list) {
    if (a.isGroupEnd()) {
      out += ";";
      sep = ", ";
      continue;
    }
    out += sep;
    if (a.isGroupStart()) {
      out += mime::decodeHeaderText(*a.mailbox) + ":";
      sep = " ";
      continue;
    }
    std::string addr;
    if (a.mailbox && *a.mailbox != mime::kMissingMailbox) addr = *a.mailbox;
    if (a.host && *a.host != mime::kMissingDomain) addr += "@" + *a.host;
    std::string name = a.name ? mime::decodeHeaderText(*a.name) : std::string();
    if (name.empty()) {
      out += addr;
    } else {
      out += name;
      if (!addr.empty()) out += " <" + addr + ">";
    }
    sep = ", ";
  }
  return out;
}

std::vector<std::string> decodedFieldValues(const mime::Header& header, std::string_view name) {
  std::vector<std::string> out;
  for (const mime::HeaderField& f : header.fields()) {
    if (equalsIgnoreCase(f.name, name)) out.push_back(decodeHeaderValue(f.value));
  }
  return out;
}

std::string decodedHeaderText(const mime::Header& header) {
  std::string out;
  for (const mime::HeaderField& f : header.fields()) {
    out.append(f.name);
    out += ": ";
    out += decodeHeaderValue(f.value);
    out += "\r\n";
  }
  return out;
}

std::string decodeTransferEncoding(std::string_view body, std::string_view encoding) {
  std::string e = trimEncoding(encoding);
  if (equalsIgnoreCase(e, "base64")) return mime::decodeBase64Body(body);
  if (equalsIgnoreCase(e, "quoted-printable")) return mime::decodeQuotedPrintable(body);
  return std::string(body);
}

std::string partTextUtf8(const mime::Message& message, const mime::Part& part) {
  std::string bytes = decodeTransferEncoding(message.bodyBytes(part), part.encoding.value_or(""));
  std::string charset = "us-ascii";
  if (const mime::Param* p = mime::findParam(part.params, "charset")) charset = mime::paramText(*p);
  if (equalsIgnoreCase(charset, "us-ascii") || equalsIgnoreCase(charset, "utf-8") ||
      charset.empty()) {
    // The default, or UTF-8: no conversion when the bytes are already valid UTF-8 (8-bit text
    // without a charset is UTF-8 more often than anything else).
    if (base::isValidUtf8(bytes)) return bytes;
    if (!equalsIgnoreCase(charset, "utf-8")) {
      // Undeclared 8-bit text that is not UTF-8 is most often Latin-1 / Windows-1252.
      if (auto w = mime::convertToUtf8(bytes, "windows-1252")) return std::move(*w);
    }
    return mime::sanitizeUtf8(bytes);
  }
  if (auto converted = mime::convertToUtf8(bytes, charset)) return std::move(*converted);
  return mime::sanitizeUtf8(bytes);
}

std::string partSearchText(const mime::Message& message, const mime::Part& part) {
  std::string text = partTextUtf8(message, part);
  if (equalsIgnoreCase(part.type, "text") && equalsIgnoreCase(part.subtype, "html")) {
    return htmlToText(text);
  }
  return text;
}

bool visitSearchTexts(const mime::Message& message, bool with_headers,
                      const std::function<bool(std::string_view)>& visit) {
  return visitSearchTextsOf(message, with_headers ? kAllSearchTexts : kBodyTexts,
                            [&](std::string_view text, bool) { return visit(text); });
}

bool visitTaggedSearchTexts(const mime::Message& message,
                            const std::function<bool(std::string_view, bool)>& visit) {
  return visitSearchTextsOf(message, kAllSearchTexts, visit);
}

bool visitSearchTextsOf(const mime::Message& message, unsigned kinds,
                        const std::function<bool(std::string_view, bool)>& visit) {
  const std::vector<mime::Part>& parts = message.parts();
  for (size_t i = 0; i < parts.size(); ++i) {
    const mime::Part& p = parts[i];
    // Headers: TEXT sees every header block (the message's own, the MIME headers of parts,
    // those of encapsulated messages); BODY only those of encapsulated messages.
    const bool header_in_body = i > 0 && p.is_message;
    if (p.header_size > 0 && (kinds & (header_in_body ? kBodyTexts : kOwnHeaders)) != 0 &&
        visit(decodedHeaderText(message.header(p)), header_in_body)) {
      return true;
    }
    if ((kinds & kBodyTexts) != 0 && isSearchableLeaf(p) && p.body_size > 0 &&
        visit(partSearchText(message, p), true)) {
      return true;
    }
  }
  return false;
}

}  // namespace darius::mailbox
