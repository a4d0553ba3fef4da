#include "mailbox/cache_fill.h"

#include <strings.h>

#include <array>

#include "lib/base/digits.h"
#include "lib/base/utf8.h"
#include "lib/mime/charset.h"
#include "lib/mime/header.h"
#include "lib/mime/message.h"
#include "lib/mime/render.h"
#include "lib/mime/rfc2047.h"
#include "mailbox/html_text.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

constexpr size_t kSectionRecordSize = 5 * 8 + 3 * 4 + 2 + 2;  // + 2 reserved: 56
constexpr size_t kPreviewChars = 200;
constexpr size_t kPreviewInput = 64 * 1024;  // never decode more of a body than this

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

void putLittleEndian(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t getLittleEndian(std::string_view in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in[at + i])) << (8 * i);
  return v;
}

std::string decodeQuotedPrintable(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c != '=') {
      out.push_back(c);
    } else if (i + 2 < in.size() && base::hexDigitValue(in[i + 1]) >= 0 &&
               base::hexDigitValue(in[i + 2]) >= 0) {
      out.push_back(
          static_cast<char>(base::hexDigitValue(in[i + 1]) * 16 + base::hexDigitValue(in[i + 2])));
      i += 2;
    } else if (in.substr(i + 1, 2) == "\r\n") {
      i += 2;  // soft line break
    } else if (in.substr(i + 1, 1) == "\n") {
      i += 1;
    } else {
      out.push_back(c);  // a stray '=' is kept, as RFC 2045 §6.7 (4) suggests
    }
  }
  return out;
}

}  // namespace

bool isUncachedHeaderField(std::string_view name) {
  static constexpr std::array<std::string_view, 9> kNames = {
      "Received", "X-Received", "DKIM-Signature", "X-Google-DKIM-Signature", "ARC-Seal",
      "ARC-Message-Signature", "ARC-Authentication-Results", "Authentication-Results",
      "Received-SPF"};
  for (std::string_view n : kNames) {
    if (iequals(name, n)) return true;
  }
  return false;
}

std::string encodeSections(const std::vector<SectionRecord>& parts) {
  std::string out;
  out.reserve(4 + parts.size() * kSectionRecordSize);
  putLittleEndian(out, parts.size(), 4);
  for (const SectionRecord& p : parts) {
    putLittleEndian(out, p.header_offset, 8);
    putLittleEndian(out, p.header_size, 8);
    putLittleEndian(out, p.body_offset, 8);
    putLittleEndian(out, p.body_size, 8);
    putLittleEndian(out, p.body_lines, 8);
    putLittleEndian(out, p.parent, 4);
    putLittleEndian(out, p.first_child, 4);
    putLittleEndian(out, p.next_sibling, 4);
    putLittleEndian(out, p.kind, 1);
    putLittleEndian(out, p.is_message ? 1 : 0, 1);
    putLittleEndian(out, 0, 2);
  }
  return out;
}

Result<std::vector<SectionRecord>> decodeSections(std::string_view in) {
  if (in.size() < 4) return Status::corruption("section table truncated");
  uint64_t n = getLittleEndian(in, 0, 4);
  if ((in.size() - 4) / kSectionRecordSize != n || (in.size() - 4) % kSectionRecordSize != 0) {
    return Status::corruption("section table size does not match its count");
  }
  std::vector<SectionRecord> parts(n);
  for (uint64_t i = 0; i < n; ++i) {
    size_t at = 4 + i * kSectionRecordSize;
    SectionRecord& p = parts[i];
    p.header_offset = getLittleEndian(in, at, 8);
    p.header_size = getLittleEndian(in, at + 8, 8);
    p.body_offset = getLittleEndian(in, at + 16, 8);
    p.body_size = getLittleEndian(in, at + 24, 8);
    p.body_lines = getLittleEndian(in, at + 32, 8);
    p.parent = static_cast<uint32_t>(getLittleEndian(in, at + 40, 4));
    p.first_child = static_cast<uint32_t>(getLittleEndian(in, at + 44, 4));
    p.next_sibling = static_cast<uint32_t>(getLittleEndian(in, at + 48, 4));
    p.kind = static_cast<uint8_t>(getLittleEndian(in, at + 52, 1));
    p.is_message = getLittleEndian(in, at + 53, 1) != 0;
    auto link_ok = [n](uint32_t l) { return l == UINT32_MAX || l < n; };
    if (p.kind > 2 || !link_ok(p.parent) || !link_ok(p.first_child) || !link_ok(p.next_sibling)) {
      return Status::corruption("section table entry " + std::to_string(i) + " is invalid");
    }
  }
  return parts;
}

std::string previewText(std::string_view message) {
  mime::Message m = mime::Message::parse(message);
  const mime::Part* chosen = nullptr;
  for (const mime::Part& p : m.parts()) {
    if (p.kind != mime::PartKind::kLeaf || !iequals(p.type, "text")) continue;
    if (p.disposition && iequals(p.disposition->type, "attachment")) continue;
    if (iequals(p.subtype, "plain")) { chosen = &p; break; }
    if (iequals(p.subtype, "html") && !chosen) chosen = &p;
  }
  if (!chosen) return "";
  std::string_view body = m.bodyBytes(*chosen).substr(0, kPreviewInput);
  std::string decoded;
  std::string enc = chosen->encoding.value_or("");
  if (iequals(enc, "base64")) decoded = mime::decodeBase64Lenient(body);
  else if (iequals(enc, "quoted-printable")) decoded = decodeQuotedPrintable(body);
  else decoded = std::string(body);
  std::string charset = "us-ascii";
  for (const mime::Param& prm : chosen->params) {
    if (iequals(prm.name, "charset")) charset = prm.value;
  }
  std::string text = mime::convertToUtf8(decoded, charset).value_or(mime::sanitizeUtf8(decoded));
  if (iequals(chosen->subtype, "html")) text = htmlToText(text);
  // Collapse white space and cut at a character boundary.
  std::string out;
  size_t chars = 0;
  bool space = false;
  for (size_t i = 0; i < text.size() && chars < kPreviewChars;) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c < 0x20 || c == 0x7f) {
      space = !out.empty();
      ++i;
      continue;
    }
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (space) {
      out.push_back(' ');
      ++chars;
      space = false;
      if (chars >= kPreviewChars) break;
    }
    out.append(text, i, len);
    ++chars;
    i += len;
  }
  return base::isValidUtf8(out) ? out : mime::sanitizeUtf8(out);
}

CacheEntry buildCacheEntry(std::string_view message) {
  mime::Message m = mime::Message::parse(message);
  CacheEntry e;
  e.envelope = mime::renderEnvelope(m);
  e.bodystructure = mime::renderBodyStructure(m, true);
  e.body = mime::renderBodyStructure(m, false);
  std::vector<SectionRecord> parts;
  parts.reserve(m.parts().size());
  for (const mime::Part& p : m.parts()) {
    parts.push_back({p.header_offset, p.header_size, p.body_offset, p.body_size, p.body_lines,
                     p.parent, p.first_child, p.next_sibling, static_cast<uint8_t>(p.kind),
                     p.is_message});
  }
  e.sections = encodeSections(parts);
  if (!m.parts().empty()) {
    std::string_view block = m.headerBytes(m.parts().front());
    std::string kept;
    for (const mime::HeaderField& f : mime::parseHeaderFields(block)) {
      if (!isUncachedHeaderField(f.name)) kept += std::string(block.substr(f.offset, f.size));
    }
    e.headers = kept + "\r\n";
  }
  e.preview = previewText(message);
  return e;
}

}  // namespace darius::mailbox
